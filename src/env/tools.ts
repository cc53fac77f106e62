// The action registry (docs/architecture.md §1, §9.6): each action the agent can take is a named tool
// that turns its arguments into an observation. execute_code and finish are built in; further
// tools (a mock search, a file reader) register under their own names.
import { TIMEOUT_OBSERVATION } from './exec_result.ts';
import type { CodeExecutor, ExecResult } from './types.ts';

/** What one step returns: the reference design's pair, plus the raw execution when there was one. */
export interface StepResult {
  observation: string;
  done: boolean;
  /** The sandbox's full result for execute_code (flags like timedOut for the trajectory record). */
  exec?: ExecResult;
}

/** What a tool may use. */
export interface ToolContext {
  executor: CodeExecutor<ExecResult>;
  /** Per-Environment deadline override for programs; the pool's default when absent. */
  timeoutMs?: number;
}

/** One action the agent can take. */
export interface Tool {
  /** One line for prompts and the UI. */
  description: string;
  run(args: Record<string, unknown>, context: ToolContext): Promise<StepResult>;
}

/** Runs `args.code` in the sandbox; a timeout ends the episode with `TIMEOUT`. */
export const executeCodeTool: Tool = {
  description: 'Run a Python program; the observation is the tail of its output.',
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
  async run() {
    return { observation: '', done: true };
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
}

/** A registry with the reference design's two actions. */
export function defaultTools(): ToolRegistry {
  return new ToolRegistry()
    .register('execute_code', executeCodeTool)
    .register('finish', finishTool);
}
