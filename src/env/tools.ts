// The action registry (docs/architecture.md §1, §9.6): each action the agent can take is a named tool
// that turns its arguments into an observation. execute_code and finish are built in; search (the
// offline docs index, src/env/search/) and any further tool register under their own names. The
// episode loop dispatches every parsed action through the run's registry, the system prompt is built
// from its tools' `usage` texts, and the parser reads each tool's `call` format
// (src/rl/actions.ts).
import { TIMEOUT_OBSERVATION } from './exec_result.ts';
import { formatSearchResults, searchDocs } from './search/index.ts';
import type { CodeExecutor, ExecOutcome } from './types.ts';

/** What one step returns: the reference design's pair, plus the raw execution when there was one. */
export interface StepResult {
  observation: string;
  done: boolean;
  /** The sandbox's full result for execute_code (flags like timedOut for the trajectory record). */
  exec?: ExecOutcome;
}

/** What a tool may use. */
export interface ToolContext {
  executor: CodeExecutor;
  /** Per-Environment deadline override for programs; the pool's default when absent. */
  timeoutMs?: number;
}

/**
 * How a model turn calls a tool, for the parser: a line `MARKER: input` (marker in any case, at the
 * start of a line) or a fenced block tagged `fence` whose body is the input. The tool then gets
 * `{ input }` as its arguments.
 */
export interface ToolCallFormat {
  /** `SEARCH` for `SEARCH: <query>`. */
  marker: string;
  /** `search` for a ```search block. */
  fence: string;
  /** What the input is, for format hints ("write what to look up after SEARCH: ..."). */
  input?: string;
  /** How a format error names this call among the choices ("SEARCH: <...> to look up a function"). */
  hint?: string;
}

/** One action the agent can take. */
export interface Tool {
  /** One line for the UI and the CLI. */
  description: string;
  /**
   * How to call it, in the system prompt's words; the prompt joins the run's usages with a space,
   * so each ends a sentence.
   */
  usage: string;
  /** The call format the parser reads; absent for execute_code and finish (the parser's own). */
  call?: ToolCallFormat;
  run(args: Record<string, unknown>, context: ToolContext): Promise<StepResult>;
}

/** Runs `args.code` in the sandbox; a timeout ends the episode with `TIMEOUT`. */
export const executeCodeTool: Tool = {
  description: 'Run a Python program; the observation is the tail of its output.',
  usage:
    'To run code, reply with one block:\n```python\n<code>\n```\nYou will then see its output.',
  async run(args, { executor, timeoutMs }) {
    const code = args.code;
    if (typeof code !== 'string') {
      return {
        observation: `execute_code needs a string argument "code", got ${code === undefined ? 'nothing' : typeof code}.`,
        done: false,
      };
    }
    const exec = await executor.execute(code, timeoutMs === undefined ? {} : { timeoutMs });
    if (exec.timedOut) return { observation: TIMEOUT_OBSERVATION, done: true, exec };
    return { observation: exec.observation, done: false, exec };
  },
};

/** Ends the episode; the answer is judged by the reward, not shown back. */
export const finishTool: Tool = {
  description: 'Give the final answer and end the episode.',
  usage: 'When you know the answer, reply with:\nFINAL ANSWER: <answer>',
  async run() {
    return { observation: '', done: true };
  },
};

/** Matches a search returns: few enough that the observation stays short. */
export const SEARCH_TOP_K = 3;

/**
 * Looks a behaviour up in the offline docs index (builtins and a few stdlib modules); the
 * observation is the top matches, each a signature and a line or two. No sandbox, no network.
 */
export const searchTool: Tool = {
  description: 'Search the offline Python docs (builtins, math, statistics, itertools, ...).',
  usage:
    'To look up a Python function, reply with one line:\nSEARCH: <what it should do>\nYou will then see the top 3 matches from the docs.',
  call: {
    marker: 'SEARCH',
    fence: 'search',
    input: 'what to look up',
    hint: 'SEARCH: <what it should do> to look up a function',
  },
  async run(args) {
    // `input` is what the rollout passes (the call format's text); `query` reads better in
    // Environment.step('search', { query }).
    const query = args.input ?? args.query;
    if (typeof query !== 'string' || query.trim() === '') {
      return {
        observation: `search needs a non-empty string argument "query", got ${query === undefined ? 'nothing' : JSON.stringify(query)}.`,
        done: false,
      };
    }
    return {
      observation: formatSearchResults(query, searchDocs(query, SEARCH_TOP_K)),
      done: false,
    };
  },
};

/** Tools by action name; the same map lists the allowed actions for prompts and the UI. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /** Adds a tool; a name may be registered once. */
  register(name: string, tool: Tool): this {
    if (!/^[a-z][a-z0-9_]*$/.test(name))
      throw new Error(`tool name ${JSON.stringify(name)} must be snake_case (letters, digits, _)`);
    if (this.tools.has(name)) throw new Error(`tool ${JSON.stringify(name)} is already registered`);
    this.tools.set(name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools with their names, in registration order (the order prompts list them). */
  entries(): [string, Tool][] {
    return [...this.tools.entries()];
  }
}

/** The built-in tools' names, in the order prompts list them (the run config's `tools` choices). */
export const TOOL_NAMES = ['execute_code', 'search', 'finish'] as const;

/** One of the built-in tools. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** The built-in tools, in the order prompts list them (TOOL_NAMES). */
export const BUILTIN_TOOLS: Readonly<Record<string, Tool>> = {
  execute_code: executeCodeTool,
  search: searchTool,
  finish: finishTool,
} satisfies Record<ToolName, Tool>;

/** Today's run: run code, give the answer (the config's default `tools`). */
export const DEFAULT_TOOL_NAMES = ['execute_code', 'finish'] as const;

/** A registry with the reference design's two actions. */
export function defaultTools(): ToolRegistry {
  return toolRegistry(DEFAULT_TOOL_NAMES);
}

/**
 * The registry of a run's tools (config `tools`), built-ins by name, `deps.tools` adding or
 * replacing tools (a fake search in tests). Registered in a fixed order whatever order the names
 * come in (built-ins as BUILTIN_TOOLS lists them, others just before finish), so a link's list order
 * cannot change the system prompt.
 */
export function toolRegistry(
  names: readonly string[],
  deps: { tools?: Readonly<Record<string, Tool>> } = {},
): ToolRegistry {
  const builtin = Object.keys(BUILTIN_TOOLS);
  const rank = (name: string): number =>
    name === 'finish'
      ? builtin.length + 1
      : builtin.includes(name)
        ? builtin.indexOf(name)
        : builtin.length;
  const registry = new ToolRegistry();
  for (const name of [...new Set(names)].sort((a, b) => rank(a) - rank(b))) {
    const tool =
      (deps.tools && Object.hasOwn(deps.tools, name) ? deps.tools[name] : undefined) ??
      (Object.hasOwn(BUILTIN_TOOLS, name) ? BUILTIN_TOOLS[name] : undefined);
    if (!tool)
      throw new Error(
        `unknown tool ${JSON.stringify(name)}. Fix: use tools from ${builtin.join(', ')}.`,
      );
    registry.register(name, tool);
  }
  return registry;
}
