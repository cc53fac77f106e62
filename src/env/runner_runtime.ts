// The runner's dealings with the pinned Pyodide's internals, apart from the runner's flow: the
// Emscripten objects it reaches, the heap cap, the sleep device, raising a Python error from a
// JavaScript callback, converting a Python result, the memory snapshot, and compiling the harness.
import type { loadPyodide } from 'pyodide';
import type { EmscriptenFs, EmscriptenMemfs, GuardedFs } from './fs_guard.ts';
import { harnessSource, JUDGE_DEVICE, SLEEP_DEVICE } from './harness_source.ts';
import type { RawExecution } from './types.ts';

type Pyodide = Awaited<ReturnType<typeof loadPyodide>>;

/**
 * Emscripten internals of the pinned Pyodide that the runner needs (not part of its public API).
 */
export interface EmscriptenInternals {
  memory: WebAssembly.Memory;
  FS: EmscriptenFs & {
    makedev(major: number, minor: number): number;
    registerDevice(
      dev: number,
      ops: {
        write: (stream: unknown, buffer: Uint8Array, offset: number, length: number) => number;
        read?: (stream: unknown, buffer: Uint8Array, offset: number, length: number) => number;
      },
    ): void;
    mkdev(path: string, dev: number): unknown;
  };
  MEMFS: EmscriptenMemfs;
  TTY: GuardedFs['TTY'];
  PIPEFS: GuardedFs['PIPEFS'];
  SOCKFS: GuardedFs['SOCKFS'] & { createSocket: (...args: unknown[]) => unknown };
  ERRNO_CODES: Record<string, number>;
  HEAPU32: Uint32Array;
  _PyExc_RuntimeError: number | { value: number };
  _PyErr_SetString(type: number, message: number): void;
  _PropagatePythonError: new () => Error;
  stringToNewUTF8(text: string): number;
  _free(pointer: number): void;
  _PyGILState_Ensure(): number;
  _PyGILState_Release(state: number): void;
}

/** A Python object returned to JavaScript (a PyProxy), converted to plain JS and dropped. */
interface PyResult {
  toJs(options: { create_pyproxies: boolean; dict_converter?: unknown }): unknown;
  destroy(): void;
}

/** Converts a Python result of plain lists, strings, bools and None to JS, and frees the proxy. */
export function plainResult(value: unknown): unknown[] {
  if (
    value === null ||
    typeof value !== 'object' ||
    typeof (value as PyResult).toJs !== 'function'
  ) {
    throw new Error('the judge returned something that is not a Python list');
  }
  const proxy = value as PyResult;
  try {
    const converted = proxy.toJs({ create_pyproxies: false });
    if (!Array.isArray(converted))
      throw new Error('the judge returned something that is not a list');
    return converted;
  } finally {
    proxy.destroy();
  }
}

/**
 * A memory snapshot of a Pyodide loaded with `_makeSnapshot`, or null where this version cannot
 * make one.
 */
export function memorySnapshot(pyodide: Pyodide): Uint8Array | null {
  try {
    return (
      (pyodide as unknown as { makeMemorySnapshot?: () => Uint8Array }).makeMemorySnapshot?.() ??
      null
    );
  } catch {
    return null;
  }
}

/**
 * Growth of the wasm heap past the cap fails, so Python raises MemoryError instead of eating the
 * tab.
 */
export function capMemory(memory: WebAssembly.Memory, capBytes: number): void {
  const grow = memory.grow.bind(memory);
  memory.grow = (deltaPages: number): number => {
    if (memory.buffer.byteLength + deltaPages * 65536 > capBytes)
      throw new RangeError('sandbox memory cap reached');
    return grow(deltaPages);
  };
}

/**
 * time.sleep writes the seconds to this device; the write blocks on the interrupt cell, so the
 * deadline's notify wakes it at once. Without SharedArrayBuffer it spins and terminate stops it.
 */
export function installSleepDevice(
  internals: EmscriptenInternals,
  interrupt: () => Int32Array | null,
): void {
  const fs = internals.FS;
  const device = fs.makedev(64, 0);
  fs.registerDevice(device, {
    write: (_stream, buffer, offset, length) => {
      const text = String.fromCharCode(...buffer.subarray(offset, offset + Math.min(length, 32)));
      const seconds = Number(text);
      const ms = Number.isFinite(seconds) ? Math.min(Math.max(seconds * 1000, 0), 1000) : 0;
      // A JS exception here would unwind through the interpreter and kill it: never throw.
      try {
        const cell = interrupt();
        if (cell) {
          Atomics.wait(cell, 0, 0, ms);
        } else {
          const end = performance.now() + ms;
          while (performance.now() < end) {
            /* no SharedArrayBuffer to wait on */
          }
        }
      } catch {
        /* Atomics.wait refused: return early, the Python loop tries again */
      }
      return length;
    },
  });
  fs.mkdev(SLEEP_DEVICE, device);
}

/**
 * The judge's device (python/judge.py `send_back`); returns what drops an unread reply: the program's interpreter writes one request
 * (an operation on an object the tests passed it), `serve` hands it to the trusted interpreter at
 * once, and reads return the reply until they return 0. A request made while another is being
 * served (the tests' callable calls the program again, which calls back) is served and read before
 * the outer one's reply exists, so one reply at a time is enough. Never throws: a JavaScript
 * exception here would unwind through the interpreter and kill it.
 */
export function installJudgeDevice(
  internals: EmscriptenInternals,
  serve: (request: string) => string | null,
): { drop: () => void; writing: () => boolean } {
  const fs = internals.FS;
  const device = fs.makedev(64, 1);
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let reply: Uint8Array | null = null;
  let at = 0;
  let writing = 0;
  fs.registerDevice(device, {
    write: (_stream, buffer, offset, length) => {
      writing++;
      try {
        const request = decoder.decode(buffer.slice(offset, offset + length));
        const text = serve(request) ?? '["refused","the judge is not ready",[],null,"","",null]';
        reply = encoder.encode(text);
      } catch {
        reply = encoder.encode('["interrupted",null,[],null,"","",null]');
      } finally {
        writing--;
      }
      at = 0;
      return length;
    },
    read: (_stream, buffer, offset, length) => {
      if (reply === null) return 0;
      const n = Math.min(length, reply.length - at);
      if (n <= 0) {
        reply = null;
        at = 0;
        return 0;
      }
      buffer.set(reply.subarray(at, at + n), offset);
      at += n;
      return n;
    },
  });
  fs.mkdev(JUDGE_DEVICE, device);
  return {
    // A reply a program never read must not reach the next run: the runner drops it before each.
    drop: () => {
      reply = null;
      at = 0;
    },
    // The program's interpreter is inside a write here (a callable the tests passed is running).
    writing: () => writing > 0,
  };
}

/**
 * Calls into an interpreter that is inside a system call (the judge's device's write, python/
 * judge.py `send_back`): CPython set its thread state aside around the write (os.write releases
 * the GIL), so it is taken back for the call and set aside again after, as a C extension's
 * callback would (PyGILState_Ensure/Release; one thread, so no other holder to wait for).
 */
export function withThreadState<T>(internals: EmscriptenInternals, call: () => T): T {
  const state = internals._PyGILState_Ensure();
  try {
    return call();
  } finally {
    internals._PyGILState_Release(state);
  }
}

/**
 * Sets a Python RuntimeError and unwinds to Pyodide's C caller without creating any JS object the
 * program could receive (Pyodide's `_PropagatePythonError` protocol).
 */
export function raisePythonError(internals: EmscriptenInternals, message: string): never {
  const address = internals._PyExc_RuntimeError;
  const typePointer =
    internals.HEAPU32[(typeof address === 'number' ? address : address.value) >>> 2]!;
  const text = internals.stringToNewUTF8(message);
  internals._PyErr_SetString(typePointer, text);
  internals._free(text);
  throw new internals._PropagatePythonError();
}

/**
 * The runtime is gone: report it as the exception CPython would have raised where we can tell.
 * What the program printed lived in the dead interpreter; Pyodide's own crash dump is noise to
 * the learner, so the observation is the one line.
 */
export function fatalExecution(cause: string, maxOutputChars: number): RawExecution {
  const overflow = /Maximum call stack size exceeded|too much recursion/i.test(cause);
  const error = overflow
    ? { type: 'RecursionError', message: 'maximum recursion depth exceeded' }
    : {
        type: 'SandboxCrash',
        message: `the Python runtime crashed and was replaced: ${cause.split('\n').find((line) => line.trim()) ?? 'unknown cause'}`,
      };
  const line = `${error.type}: ${error.message}\n`;
  return {
    ok: false,
    error,
    combined: line.slice(-maxOutputChars),
    stdout: '',
    stderr: line,
    truncated: false,
    interrupted: false,
    fatal: true,
    tainted: true,
    memoryBytes: 0,
    filesRemoved: 0,
  };
}

/** A Python callable held from JavaScript (a PyProxy), as far as the runner calls it. */
export interface PyCallable {
  (...args: unknown[]): unknown;
  destroy(): void;
}

/** The judge's closures (python/judge.py), held only by the runner. */
export interface JudgeApi {
  begin: PyCallable;
  call: PyCallable;
  finish: PyCallable;
}

/**
 * Compiles the Python harness under `<sandbox>` and runs `_lockdown`: `_run` for execute(), the
 * judge's closures, and the lockdown's audit report (null unless `audit`).
 */
export function compileHarness(
  pyodide: Pyodide,
  audit: boolean,
): {
  runProgram: PyCallable;
  judgeApi: JudgeApi;
  report: { findings: string[]; visited: number } | null;
} {
  const namespace = pyodide.toPy({}) as {
    set(key: string, value: unknown): void;
    get(key: string): unknown;
    destroy(): void;
  };
  namespace.set('__name__', '_sandbox');
  namespace.set('_source', harnessSource());
  pyodide.runPython("exec(compile(_source, '<sandbox>', 'exec'), globals())\ndel _source", {
    globals: namespace as never,
  });
  const lockdown = namespace.get('_lockdown') as PyCallable;
  const runProgram = namespace.get('_run') as PyCallable;
  namespace.destroy();
  // The judge's closures come back only here: no Python global, module or cache keeps them.
  const result = lockdown(audit) as { get(key: string): unknown; destroy(): void };
  lockdown.destroy();
  const report = JSON.parse(result.get('report') as string) as {
    findings: string[];
    visited: number;
  } | null;
  const judgeApi = {
    begin: result.get('begin') as PyCallable,
    call: result.get('call') as PyCallable,
    finish: result.get('finish') as PyCallable,
  };
  result.destroy();
  return { runProgram, judgeApi, report };
}
