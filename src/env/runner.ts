// The worker half of a sandbox (built by workers/sandbox.worker.ts, called through comlink): loads
// Pyodide, hardens the runtime from the JavaScript side (heap cap, no sockets, read-only baseline
// files, a sleep that the deadline wakes), runs the Python lockdown, then executes programs.
// Nothing here touches a browser or Node global; the shell injects the loader and the scope hardening.
import type { loadPyodide } from 'pyodide';
import { FileSystemGuard, type EmscriptenFs, type EmscriptenMemfs } from './fs_guard.ts';
import { CAPTURE_SOURCE } from './capture_py.ts';
import { HARNESS_SOURCE, SLEEP_DEVICE } from './harness_py.ts';
import { LOCKDOWN_SOURCE } from './lockdown_py.ts';
import { RESTORE_SOURCE } from './restore_py.ts';
import { TailBuffer } from './tail.ts';
import type { RawExecution, SandboxInit, SandboxReady, SandboxRunnerApi } from './types.ts';

type Pyodide = Awaited<ReturnType<typeof loadPyodide>>;
type PyodideOptions = NonNullable<Parameters<typeof loadPyodide>[0]>;

/** A Python callable held from JavaScript (a PyProxy), as far as this file calls it. */
interface PyCallable { (...args: unknown[]): unknown; destroy(): void }

/** Emscripten internals of the pinned Pyodide that the runner needs (not part of its public API). */
interface EmscriptenInternals {
  memory: WebAssembly.Memory;
  FS: EmscriptenFs & {
    makedev(major: number, minor: number): number;
    registerDevice(dev: number, ops: { write: (stream: unknown, buffer: Uint8Array, offset: number, length: number) => number }): void;
    mkdev(path: string, dev: number): unknown;
  };
  MEMFS: EmscriptenMemfs;
  SOCKFS: { createSocket: (...args: unknown[]) => unknown };
  ERRNO_CODES: Record<string, number>;
  HEAPU32: Uint32Array;
  _PyExc_RuntimeError: number | { value: number };
  _PyErr_SetString(type: number, message: number): void;
  _PropagatePythonError: new () => Error;
  stringToNewUTF8(text: string): number;
  _free(pointer: number): void;
}

/** What the worker shell supplies. */
export interface RunnerHost {
  loadPyodide: (options: PyodideOptions) => Promise<Pyodide>;
  /** Index URL when init() gives none (the shell knows where the build put the files). */
  defaultIndexURL?: string;
  /** Removes network and storage capabilities from the worker scope; returns the names removed. */
  hardenScope: () => string[];
}

/** Bytes a program may write into files per run (MEMFS lives in the JavaScript heap). */
const FILE_QUOTA_BYTES = 64 * 2 ** 20;
/** Open descriptors a worker may accumulate before it is recycled. */
const MAX_LEAKED_STREAMS = 64;

/** A memory snapshot of a Pyodide loaded with `_makeSnapshot`, or null where this version cannot make one. */
function memorySnapshot(pyodide: Pyodide): Uint8Array | null {
  try {
    return (pyodide as unknown as { makeMemorySnapshot?: () => Uint8Array }).makeMemorySnapshot?.() ?? null;
  } catch {
    return null;
  }
}

/** One Pyodide interpreter, locked down, running one program at a time. */
export class SandboxRunner implements SandboxRunnerApi {
  private internals: EmscriptenInternals | null = null;
  private runProgram: PyCallable | null = null;
  private fsGuard: FileSystemGuard | null = null;
  private interrupt: Int32Array | null = null;
  private options: SandboxInit | null = null;
  private snapshot: Uint8Array | null = null;
  private readonly fdOutput = new TailBuffer(10_000);
  private dead: string | null = null;

  constructor(private readonly host: RunnerHost) {}

  /** Loads Pyodide and locks it down; resolves when the first program may run. */
  async init(options: SandboxInit): Promise<SandboxReady> {
    this.options = options;
    this.fdOutput.cap = options.maxCaptureChars;
    const loadStart = performance.now();
    const indexURL = options.indexURL ?? this.host.defaultIndexURL;
    const restore = options.snapshot !== undefined;
    const pyodide = await this.host.loadPyodide({
      ...(indexURL ? { indexURL } : {}),
      // (the underscored options are Pyodide's memory snapshots, undocumented: the pinned version is tested)
      ...(restore ? { _loadSnapshot: options.snapshot } : options.makeSnapshot ? { _makeSnapshot: true } : {}),
      // The `js` module would otherwise be globalThis; the scrub removes it, this makes it empty too.
      jsglobals: Object.create(null) as object,
      env: { HOME: '/home/pyodide' },
      stdout: (text: string) => this.fdOutput.add(`${text}\n`),
      stderr: (text: string) => this.fdOutput.add(`${text}\n`),
    });
    const loadMs = performance.now() - loadStart;
    // Before the hardening, the lockdown or any program: a restored worker starts from the state a
    // cold load leaves, and then goes through the same hardening and lockdown.
    if (options.makeSnapshot && !restore) this.snapshot = memorySnapshot(pyodide);
    const lockdownStart = performance.now();
    // Internal Emscripten objects; the pinned Pyodide version is tested against this shape.
    const internals = (pyodide as unknown as { _module: EmscriptenInternals })._module;
    this.internals = internals;
    this.hardenRuntime(pyodide, internals, options);
    const removedGlobals = this.host.hardenScope();
    const report = this.lockDown(pyodide, options.audit === true);
    this.fsGuard = new FileSystemGuard(internals.FS, internals.MEMFS, {
      readOnly: internals.ERRNO_CODES.EROFS ?? 69,
      noSpace: internals.ERRNO_CODES.ENOSPC ?? 51,
    }, FILE_QUOTA_BYTES);
    this.fsGuard.protect();
    // One throwaway program, so a fresh worker (a spare taking over) serves its first real call warm.
    await this.execute('pass');
    return {
      loadMs,
      fromSnapshot: restore,
      lockdownMs: performance.now() - lockdownStart,
      memoryBytes: internals.memory.buffer.byteLength,
      removedGlobals,
      audit: report ? report.findings : null,
      auditVisited: report ? report.visited : null,
    };
  }

  /** The snapshot init made, handed over once (it holds the whole fresh heap, ~30 MB). */
  takeSnapshot(): Uint8Array | null {
    const snapshot = this.snapshot;
    this.snapshot = null;
    return snapshot;
  }

  /** The JavaScript-side guards: heap cap, no JS errors or sockets for Python, streams, interrupt, sleep. */
  private hardenRuntime(pyodide: Pyodide, internals: EmscriptenInternals, options: SandboxInit): void {
    this.capMemory(internals.memory, options.memoryCapBytes);
    // JsException(name, message) builds a JS Error through this hook; a program must not get one.
    // Throwing a JS Error here would hand the program that Error as JsException.js_error, so the
    // refusal is raised as a Python RuntimeError instead.
    (pyodide as unknown as { _api: { deserializeError: () => never } })._api.deserializeError = () =>
      raisePythonError(internals, 'JsException cannot be created in the sandbox');
    const noAccess = internals.ERRNO_CODES.EACCES ?? 2;
    internals.SOCKFS.createSocket = () => { throw new internals.FS.ErrnoError(noAccess); };
    const writeText = (buffer: Uint8Array) => { this.fdOutput.add(new TextDecoder().decode(buffer)); return buffer.length; };
    pyodide.setStdout({ write: writeText });
    pyodide.setStderr({ write: writeText });
    pyodide.setStdin({ stdin: () => null });
    if (options.interruptBuffer) {
      this.interrupt = new Int32Array(options.interruptBuffer);
      pyodide.setInterruptBuffer(this.interrupt);
    }
    this.installSleepDevice(internals);
  }

  /** Compiles the Python harness under `<sandbox>` and runs `_lockdown`; keeps `_run` for execute(). */
  private lockDown(pyodide: Pyodide, audit: boolean): { findings: string[]; visited: number } | null {
    const namespace = pyodide.toPy({}) as { set(key: string, value: unknown): void; get(key: string): unknown; destroy(): void };
    namespace.set('__name__', '_sandbox');
    namespace.set('_source', [CAPTURE_SOURCE, RESTORE_SOURCE, HARNESS_SOURCE, LOCKDOWN_SOURCE].join('\n'));
    pyodide.runPython("exec(compile(_source, '<sandbox>', 'exec'), globals())\ndel _source", { globals: namespace as never });
    const lockdown = namespace.get('_lockdown') as PyCallable;
    this.runProgram = namespace.get('_run') as PyCallable;
    namespace.destroy();
    const report = JSON.parse(lockdown(audit) as string) as { findings: string[]; visited: number } | null;
    lockdown.destroy();
    return report;
  }

  /** Runs one program in a fresh namespace and puts the interpreter back afterwards. */
  async execute(code: string): Promise<RawExecution> {
    const options = this.options;
    const run = this.runProgram;
    const internals = this.internals;
    if (!options || !run || !internals || !this.fsGuard) throw new Error('SandboxRunner.execute called before init()');
    if (this.dead) return this.fatal(this.dead);
    this.fdOutput.clear();
    let parsed: RawPythonResult;
    try {
      parsed = JSON.parse(run(code, options.maxOutputChars, options.maxCaptureChars) as string) as RawPythonResult;
    } catch (error) {
      return this.failure(error);
    }
    const removed = this.fsGuard.cleanup();
    const memoryBytes = internals.memory.buffer.byteLength;
    const extra = this.fdOutput.text();
    const combined = (parsed.combined + extra).slice(-options.maxOutputChars);
    return {
      ok: parsed.ok,
      error: parsed.errorType === null ? null : { type: parsed.errorType, message: parsed.errorMessage ?? '' },
      combined,
      stdout: (parsed.stdout + extra).slice(-options.maxCaptureChars),
      stderr: parsed.stderr,
      truncated: parsed.truncated || this.fdOutput.truncated(),
      interrupted: parsed.interrupted,
      fatal: false,
      tainted: parsed.tainted || this.fsGuard.leakedStreams() > MAX_LEAKED_STREAMS,
      memoryBytes,
      filesRemoved: removed,
    };
  }

  /** A Python exception escaped `_run` (an interrupt in its epilogue), or the runtime died. */
  private failure(error: unknown): RawExecution {
    const pythonType = (error as { type?: unknown }).type;
    const fatal = (error as { pyodide_fatal_error?: unknown }).pyodide_fatal_error === true || typeof pythonType !== 'string';
    const message = error instanceof Error ? error.message : String(error);
    if (fatal) {
      this.dead = message;
      return this.fatal(message);
    }
    return {
      ok: false,
      error: { type: pythonType as string, message: '' },
      combined: this.fdOutput.text(),
      stdout: this.fdOutput.text(),
      stderr: '',
      truncated: false,
      interrupted: pythonType === 'KeyboardInterrupt',
      fatal: false,
      tainted: true,
      memoryBytes: this.internals?.memory.buffer.byteLength ?? 0,
      filesRemoved: 0,
    };
  }

  /**
   * The runtime is gone: report it as the exception CPython would have raised where we can tell.
   * What the program printed lived in the dead interpreter; Pyodide's own crash dump is noise to
   * the learner, so the observation is the one line.
   */
  private fatal(cause: string): RawExecution {
    const overflow = /Maximum call stack size exceeded|too much recursion/i.test(cause);
    const error = overflow
      ? { type: 'RecursionError', message: 'maximum recursion depth exceeded' }
      : { type: 'SandboxCrash', message: `the Python runtime crashed and was replaced: ${cause.split('\n').find((line) => line.trim()) ?? 'unknown cause'}` };
    const line = `${error.type}: ${error.message}\n`;
    return {
      ok: false, error, combined: line.slice(-(this.options?.maxOutputChars ?? 500)), stdout: '', stderr: line,
      truncated: false, interrupted: false, fatal: true, tainted: true, memoryBytes: 0, filesRemoved: 0,
    };
  }

  /** Growth of the wasm heap past the cap fails, so Python raises MemoryError instead of eating the tab. */
  private capMemory(memory: WebAssembly.Memory, capBytes: number): void {
    const grow = memory.grow.bind(memory);
    memory.grow = (deltaPages: number): number => {
      if (memory.buffer.byteLength + deltaPages * 65536 > capBytes) throw new RangeError('sandbox memory cap reached');
      return grow(deltaPages);
    };
  }

  /**
   * time.sleep writes the seconds to this device; the write blocks on the interrupt cell, so the
   * deadline's notify wakes it at once. Without SharedArrayBuffer it spins and terminate stops it.
   */
  private installSleepDevice(internals: EmscriptenInternals): void {
    const fs = internals.FS;
    const device = fs.makedev(64, 0);
    fs.registerDevice(device, {
      write: (_stream, buffer, offset, length) => {
        const text = String.fromCharCode(...buffer.subarray(offset, offset + Math.min(length, 32)));
        const seconds = Number(text);
        const ms = Number.isFinite(seconds) ? Math.min(Math.max(seconds * 1000, 0), 1000) : 0;
        // A JS exception here would unwind through the interpreter and kill it: never throw.
        try {
          if (this.interrupt) {
            Atomics.wait(this.interrupt, 0, 0, ms);
          } else {
            const end = performance.now() + ms;
            while (performance.now() < end) { /* no SharedArrayBuffer to wait on */ }
          }
        } catch { /* Atomics.wait refused: return early, the Python loop tries again */ }
        return length;
      },
    });
    fs.mkdev(SLEEP_DEVICE, device);
  }
}

/**
 * Sets a Python RuntimeError and unwinds to Pyodide's C caller without creating any JS object the
 * program could receive (Pyodide's `_PropagatePythonError` protocol).
 */
function raisePythonError(internals: EmscriptenInternals, message: string): never {
  const address = internals._PyExc_RuntimeError;
  const typePointer = internals.HEAPU32[(typeof address === 'number' ? address : address.value) >>> 2]!;
  const text = internals.stringToNewUTF8(message);
  internals._PyErr_SetString(typePointer, text);
  internals._free(text);
  throw new internals._PropagatePythonError();
}

/** The JSON `_run` returns (see harness_py.ts). */
interface RawPythonResult {
  ok: boolean;
  errorType: string | null;
  errorMessage: string | null;
  interrupted: boolean;
  tainted: boolean;
  combined: string;
  stdout: string;
  stderr: string;
  truncated: boolean;
}
