// The worker half of a sandbox (built by workers/sandbox.worker.ts, called through comlink): loads
// Pyodide, hardens the runtime from the JavaScript side (heap cap, no sockets, read-only baseline
// files, a sleep that the deadline wakes), runs the Python lockdown, then executes programs.
// Nothing here touches a browser or Node global; the shell injects the loader and the scope
// hardening.
import type { loadPyodide } from 'pyodide';
import { FileSystemGuard } from './fs_guard.ts';
import { judgementCalls } from './judgement_calls.ts';
import { CleanRuns, type ImageInternals, MemoryImage } from './memory_image.ts';
import {
  compileHarness,
  type JudgeApi,
  type PyCallable,
  capMemory,
  fatalExecution,
  type EmscriptenInternals,
  installJudgeDevice,
  withThreadState,
  installSleepDevice,
  memorySnapshot,
  raisePythonError,
} from './runner_runtime.ts';
import { TailBuffer } from './tail.ts';
import { TrustedJudge } from './trusted_judge.ts';
import type {
  JudgeProbe,
  RawExecution,
  RawJudgement,
  SandboxInit,
  SandboxReady,
  SandboxRunnerApi,
} from './types.ts';

type Pyodide = Awaited<ReturnType<typeof loadPyodide>>;
type PyodideOptions = NonNullable<Parameters<typeof loadPyodide>[0]>;

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

/** Runs of each kind before the memory image is taken (see init). */
const WARM_RUNS = 8;
const WARM_TESTS: JudgeProbe[] = [
  { kind: 'value', expr: 'f(1)' },
  { kind: 'statement', source: 'assert f(2) == 2' },
];

/** One Pyodide interpreter, locked down, running one program at a time. */
export class SandboxRunner implements SandboxRunnerApi {
  private internals: EmscriptenInternals | null = null;
  private runProgram: PyCallable | null = null;
  private judgeApi: JudgeApi | null = null;
  /** The judge's device (runner_runtime.ts): drops an unread reply; says whether a write is on. */
  private judgeDevice: { drop: () => void; writing: () => boolean } | null = null;
  /** The interpreter that runs the tests, never a program (trusted_judge.ts). */
  private trusted: TrustedJudge | null = null;
  private fsGuard: FileSystemGuard | null = null;
  private interrupt: Int32Array | null = null;
  private options: SandboxInit | null = null;
  private snapshot: Uint8Array | null = null;
  private readonly fdOutput = new TailBuffer(10_000);
  private dead: string | null = null;
  /** The clean interpreter every run starts from (memory_image.ts); null until init() ends. */
  private clean: CleanRuns | null = null;

  constructor(private readonly host: RunnerHost) {}

  /** What the last restore of the clean interpreter took (ms), for the bench. */
  get lastRestoreMs(): number {
    return this.clean?.lastRestoreMs ?? 0;
  }

  /** What the last restore of the file system took (ms), for the bench. */
  get lastFsRestoreMs(): number {
    return this.fsGuard?.lastRestoreMs ?? 0;
  }

  /** Loads Pyodide and locks it down; resolves when the first program may run. */
  async init(options: SandboxInit): Promise<SandboxReady> {
    this.options = options;
    this.fdOutput.cap = options.maxCaptureChars;
    const loadStart = performance.now();
    const indexURL = options.indexURL ?? this.host.defaultIndexURL;
    const restore = options.snapshot !== undefined;
    const pyodide = await this.host.loadPyodide({
      ...(indexURL ? { indexURL } : {}),
      // (the underscored options are Pyodide's memory snapshots, undocumented: the pinned version
      // is tested). A cold load always makes one: the trusted interpreter starts from it (190 ms
      // against 2.4 s cold, Node), and the pool keeps it where it asked (makeSnapshot).
      ...(restore ? { _loadSnapshot: options.snapshot } : { _makeSnapshot: true }),
      // The `js` module would otherwise be globalThis; the scrub removes it, this makes it empty
      // too.
      jsglobals: Object.create(null) as object,
      env: { HOME: '/home/pyodide' },
      stdout: (text: string) => this.fdOutput.add(`${text}\n`),
      stderr: (text: string) => this.fdOutput.add(`${text}\n`),
    });
    const loadMs = performance.now() - loadStart;
    // Before the hardening, the lockdown or any program: a restored worker starts from the state a
    // cold load leaves, and then goes through the same hardening and lockdown.
    const fresh = restore ? options.snapshot : (memorySnapshot(pyodide) ?? undefined);
    if (options.makeSnapshot && !restore) this.snapshot = fresh ?? null;
    // The trusted interpreter loads before the scope loses fetch (hardenScope), which Pyodide's
    // loader needs for its files, and from the fresh interpreter's snapshot where there is one.
    const trustedStart = performance.now();
    const trusted = await TrustedJudge.load(this.host.loadPyodide, indexURL, fresh);
    this.trusted = trusted;
    const trustedMs = performance.now() - trustedStart;
    const lockdownStart = performance.now();
    // Internal Emscripten objects; the pinned Pyodide version is tested against this shape.
    const internals = (pyodide as unknown as { _module: EmscriptenInternals })._module;
    this.internals = internals;
    this.hardenRuntime(pyodide, internals, options);
    if (this.interrupt) trusted.setInterruptBuffer(this.interrupt);
    const removedGlobals = this.host.hardenScope();
    const harness = compileHarness(pyodide, options.audit === true);
    this.runProgram = harness.runProgram;
    this.judgeApi = harness.judgeApi;
    const report = harness.report;
    this.fsGuard = new FileSystemGuard(
      internals,
      {
        readOnly: internals.ERRNO_CODES.EROFS ?? 69,
        noSpace: internals.ERRNO_CODES.ENOSPC ?? 51,
        invalid: internals.ERRNO_CODES.EINVAL ?? 28,
      },
      FILE_QUOTA_BYTES,
    );
    this.fsGuard.protect();
    // One throwaway program, so a fresh worker (a spare taking over) serves its first real call
    // warm.
    await this.execute('pass');
    if (options.isolate !== false) {
      // The clean interpreter's image: after the lockdown, when every proxy this runner keeps (the
      // harness's functions) exists and none other does, and after a few runs of each path, so
      // every run starts with the harness's bytecode already specialized (CPython's adaptive
      // interpreter) rather than warming it up again each time.
      for (let i = 0; i < WARM_RUNS; i++) {
        await this.execute(`print(${i})`);
        await this.judge('def f(x):\n    return x', WARM_TESTS);
      }
      this.clean = new CleanRuns(new MemoryImage(internals as unknown as ImageInternals));
    }
    return {
      loadMs,
      fromSnapshot: restore,
      lockdownMs: performance.now() - lockdownStart,
      trustedMs,
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

  /**
   * The JavaScript-side guards: heap cap, no JS errors or sockets for Python, streams, interrupt,
   * sleep.
   */
  private hardenRuntime(
    pyodide: Pyodide,
    internals: EmscriptenInternals,
    options: SandboxInit,
  ): void {
    capMemory(internals.memory, options.memoryCapBytes);
    // JsException(name, message) builds a JS Error through this hook; a program must not get one.
    // Throwing a JS Error here would hand the program that Error as JsException.js_error, so the
    // refusal is raised as a Python RuntimeError instead.
    (pyodide as unknown as { _api: { deserializeError: () => never } })._api.deserializeError =
      () => raisePythonError(internals, 'JsException cannot be created in the sandbox');
    const noAccess = internals.ERRNO_CODES.EACCES ?? 2;
    internals.SOCKFS.createSocket = () => {
      throw new internals.FS.ErrnoError(noAccess);
    };
    const writeText = (buffer: Uint8Array) => {
      this.fdOutput.add(new TextDecoder().decode(buffer));
      return buffer.length;
    };
    pyodide.setStdout({ write: writeText });
    pyodide.setStderr({ write: writeText });
    pyodide.setStdin({ stdin: () => null });
    if (options.interruptBuffer) {
      this.interrupt = new Int32Array(options.interruptBuffer);
      pyodide.setInterruptBuffer(this.interrupt);
    }
    installSleepDevice(internals, () => this.interrupt);
    this.judgeDevice = installJudgeDevice(
      internals,
      (request) => this.trusted?.serveBack(request) ?? null,
    );
  }

  /** Runs one program in a fresh namespace and puts the interpreter back afterwards. */
  async execute(code: string): Promise<RawExecution> {
    const options = this.options;
    const run = this.runProgram;
    const internals = this.internals;
    if (!options || !run || !internals || !this.fsGuard)
      throw new Error('SandboxRunner.execute called before init()');
    if (this.dead) return this.fatal(this.dead);
    const unclean = this.beginRun();
    if (unclean) return this.failure(unclean);
    this.fdOutput.clear();
    let parsed: RawPythonResult;
    try {
      parsed = JSON.parse(
        run(code, options.maxOutputChars, options.maxCaptureChars) as string,
      ) as RawPythonResult;
    } catch (error) {
      return this.failure(error);
    }
    const removed = this.fsGuard.cleanup();
    this.endRun();
    const memoryBytes = internals.memory.buffer.byteLength;
    const extra = this.fdOutput.text();
    const combined = (parsed.combined + extra).slice(-options.maxOutputChars);
    return {
      ok: parsed.ok,
      error:
        parsed.errorType === null
          ? null
          : { type: parsed.errorType, message: parsed.errorMessage ?? '' },
      combined,
      stdout: (parsed.stdout + extra).slice(-options.maxCaptureChars),
      stderr: parsed.stderr,
      truncated: parsed.truncated || this.fdOutput.truncated(),
      interrupted: parsed.interrupted,
      fatal: false,
      tainted:
        parsed.tainted ||
        this.fsGuard.leakedStreams() > MAX_LEAKED_STREAMS ||
        this.clean?.image.check() != null,
      memoryBytes,
      filesRemoved: removed,
    };
  }

  /**
   * Judges a program against hidden tests: runs it (its definitions, in a fresh __main__), then its
   * tests in the trusted interpreter, then the clean-up (judgement_calls.ts). Nothing the program prints is read for the verdict. The expected values
   * stay on the caller's side (SandboxPool.judge compares).
   */
  async judge(code: string, tests: readonly JudgeProbe[]): Promise<RawJudgement> {
    const options = this.options;
    const api = this.judgeApi;
    const trusted = this.trusted;
    const internals = this.internals;
    if (!options || !api || !trusted || !internals || !this.fsGuard)
      throw new Error('SandboxRunner.judge called before init()');
    if (this.dead) return { ...this.fatal(this.dead), results: [], tampered: [] };
    if (typeof code !== 'string' || !Array.isArray(tests))
      throw new Error('SandboxRunner.judge: code must be a string and tests a list');
    const unclean = this.beginRun();
    if (unclean) return { ...this.failure(unclean), results: [], tampered: [] };
    this.fdOutput.clear();
    // A call that arrives while the program's interpreter is inside the device's write (a callable
    // the tests passed calls the program back) takes its thread state back first.
    const device = this.judgeDevice;
    const call = ((request: string) =>
      device?.writing()
        ? withThreadState(internals, () => api.call(request))
        : api.call(request)) as PyCallable;
    const calls = judgementCalls(api, call, trusted, code, tests, options);
    const { escaped, results, tampered, limits, combined, stdout, stderr, truncated } = calls;
    let { ok, errorType, interrupted } = calls;
    if (escaped !== null) {
      const failed = this.failure(escaped);
      if (failed.fatal) return { ...failed, results, tampered };
      interrupted ||= failed.interrupted;
      ok = false;
      errorType ??= failed.error?.type ?? 'Error';
    }
    const removed = this.fsGuard.cleanup();
    this.endRun();
    const extra = this.fdOutput.text();
    return {
      ok,
      error: errorType === null ? null : { type: errorType, message: '' },
      combined: (combined + extra).slice(-options.maxOutputChars),
      stdout: (stdout + extra).slice(-options.maxCaptureChars),
      stderr,
      truncated: truncated || this.fdOutput.truncated(),
      interrupted,
      fatal: false,
      tainted:
        calls.tainted ||
        this.fsGuard.leakedStreams() > MAX_LEAKED_STREAMS ||
        this.clean?.image.check() != null,
      memoryBytes: internals.memory.buffer.byteLength,
      filesRemoved: removed,
      results,
      tampered,
      limits,
    };
  }

  private beginRun(): Error | null {
    this.judgeDevice?.drop();
    return this.clean?.begin() ?? null;
  }

  private endRun(): void {
    this.clean?.end(() => this.dead !== null);
  }

  /** A Python exception escaped `_run` (an interrupt in its epilogue), or the runtime died. */
  private failure(error: unknown): RawExecution {
    const pythonType = (error as { type?: unknown }).type;
    const fatal =
      (error as { pyodide_fatal_error?: unknown }).pyodide_fatal_error === true ||
      typeof pythonType !== 'string';
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

  private fatal(cause: string): RawExecution {
    return fatalExecution(cause, this.options?.maxOutputChars ?? 500);
  }
}

/** The JSON `_run` returns (see python/harness.py). */
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
