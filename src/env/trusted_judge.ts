// The sandbox worker's second interpreter (docs/sandbox.md "The judge"): it runs a task's tests
// (python/trusted.py) and never runs a program. Each operation a test does on the program's names
// and objects crosses to the program's interpreter through `cross` (python/judge.py `call`), and
// each one the program does on an object the tests passed it comes back through `serveBack` (the
// judge's device, runner_runtime.ts): strings both ways (python/crossing.py).
import type { loadPyodide } from 'pyodide';
import { trustedSource } from './harness_source.ts';
import type { PyCallable } from './runner_runtime.ts';
import type { JudgeProbe, RawTestResult } from './types.ts';

type Pyodide = Awaited<ReturnType<typeof loadPyodide>>;
type PyodideOptions = NonNullable<Parameters<typeof loadPyodide>[0]>;

/** What a crossing answers when the judgement must stop, and for a reply past the cap. */
const INTERRUPTED = '["interrupted",null,[],null,"","",null]';
const TOO_LARGE = '["refused","a reply larger than 128 MB",[],null,"","",null]';
const IDLE = '["refused","no judgement is running",[],null,"","",null]';
/**
 * A reply's cap in characters: a value of tens of MB crosses (a 9 MB string, a dict of 200,000
 * items), while the trusted interpreter, which decodes it, stays far from its own memory's end.
 */
const MAX_REPLY_CHARS = 128 * 2 ** 20;

/** The trusted interpreter and its judge, held by the runner. */
export class TrustedJudge {
  /** The judgement under way: where crossings send their reasons, and what escaped. */
  private crossing: {
    call: PyCallable;
    noteAll: (reasons: unknown) => void;
    escaped: unknown;
  } | null = null;
  private judge: PyCallable | null = null;
  private serve: PyCallable | null = null;

  private constructor(private readonly pyodide: Pyodide) {}

  /**
   * Loads the interpreter like the program's (from a snapshot where there is one); it never runs a
   * program, so it needs no lockdown. Call before the worker's scope loses fetch, which Pyodide's
   * loader needs for its files.
   */
  static async load(
    load: (options: PyodideOptions) => Promise<Pyodide>,
    indexURL: string | undefined,
    snapshot: Uint8Array | undefined,
  ): Promise<TrustedJudge> {
    const pyodide = await load({
      ...(indexURL ? { indexURL } : {}),
      ...(snapshot !== undefined ? { _loadSnapshot: snapshot } : {}),
      jsglobals: Object.create(null) as object,
      env: { HOME: '/home/pyodide' },
      stdout: () => {},
      stderr: () => {},
    });
    pyodide.setStdout({ write: (buffer: Uint8Array) => buffer.length });
    pyodide.setStderr({ write: (buffer: Uint8Array) => buffer.length });
    pyodide.setStdin({ stdin: () => null });
    const trusted = new TrustedJudge(pyodide);
    const namespace = pyodide.toPy({}) as {
      set(key: string, value: unknown): void;
      get(key: string): unknown;
      destroy(): void;
    };
    namespace.set('_source', trustedSource());
    pyodide.runPython("exec(compile(_source, '<trusted>', 'exec'), globals())", {
      globals: namespace as never,
    });
    const make = namespace.get('_make_trusted') as PyCallable;
    namespace.destroy();
    const made = make((request: unknown) => trusted.cross(request)) as {
      get(index: number): PyCallable;
      destroy(): void;
    };
    trusted.judge = made.get(0);
    trusted.serve = made.get(1);
    made.destroy();
    make.destroy();
    return trusted;
  }

  /** The deadline's interrupt buffer, shared with the program's interpreter. */
  setInterruptBuffer(buffer: Int32Array): void {
    this.pyodide.setInterruptBuffer(buffer);
  }

  /**
   * Runs `tests` against the program whose globals `names` describes (python/judge.py `names`),
   * its functions reached through `call`; one result per test. Throws what escaped a crossing (the
   * deadline in the harness's epilogue, the runtime dying).
   */
  run(
    call: PyCallable,
    initial: string,
    tests: readonly JudgeProbe[],
    noteAll: (reasons: unknown) => void,
  ): { results: RawTestResult[]; interrupted: boolean; limits: string[] } {
    const tested = tests.map((probe) => {
      // A setup line runs as a statement does; the caller does not count its result.
      const text = probe.kind === 'value' ? probe.expr : probe.source;
      if (typeof text !== 'string') throw new Error('SandboxRunner.judge: a test has no source');
      return probe.kind === 'value'
        ? ['value', text, probe.literal ?? 'None']
        : [probe.kind === 'setup' ? 'setup' : 'statement', text];
    });
    this.crossing = { call, noteAll, escaped: null };
    let reply: unknown;
    try {
      reply = this.judge!(initial, JSON.stringify(tested));
    } catch (error) {
      this.crossing = null;
      throw error;
    }
    const escaped = this.crossing.escaped;
    this.crossing = null;
    if (escaped !== null) throw escaped;
    const [replies, interrupted, limits] = JSON.parse(String(reply)) as [
      unknown[],
      boolean,
      unknown,
    ];
    const results = replies.map((item): RawTestResult => {
      const result = Array.isArray(item) ? item : [];
      if (result[0] === 'value') return { status: 'value', value: result[1] as never };
      if (result[0] === 'pass') return { status: 'pass' };
      return { status: 'error', error: typeof result[1] === 'string' ? result[1] : 'error' };
    });
    return {
      results,
      interrupted: interrupted === true,
      limits: Array.isArray(limits) ? limits.filter((l): l is string => typeof l === 'string') : [],
    };
  }

  /**
   * An operation from the program's interpreter on an object the tests passed it (the judge's
   * device): only while a judgement is under way; a failure stops the judgement.
   */
  serveBack(request: string): string {
    const crossing = this.crossing;
    if (!crossing || crossing.escaped !== null || !this.serve) return IDLE;
    try {
      const text = this.serve(request);
      if (typeof text !== 'string')
        throw new Error('the trusted judge returned something not a string');
      return text.length > MAX_REPLY_CHARS ? TOO_LARGE : text;
    } catch (error) {
      crossing.escaped = error;
      return INTERRUPTED;
    }
  }

  /**
   * One crossing into the program's interpreter: the reply checked to be JSON and capped in size.
   * A failure here stops the judgement.
   */
  private cross(request: unknown): string {
    const crossing = this.crossing;
    if (!crossing || crossing.escaped !== null || typeof request !== 'string') return INTERRUPTED;
    try {
      const text = crossing.call(request);
      if (typeof text !== 'string') throw new Error('the judge returned something not a string');
      // The reasons noted so far, a newline, the reply (passed on as it is: the trusted side checks
      // it, and JSON numbers must not go through JavaScript's doubles).
      const newline = text.indexOf('\n');
      if (newline < 0) throw new Error('the judge replied without its reasons');
      crossing.noteAll(JSON.parse(text.slice(0, newline)));
      const reply = text.slice(newline + 1);
      return reply.length > MAX_REPLY_CHARS ? TOO_LARGE : reply;
    } catch (error) {
      crossing.escaped = error;
      return INTERRUPTED;
    }
  }
}
