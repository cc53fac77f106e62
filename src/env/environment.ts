// The Environment of the reference design (docs/architecture.md §1): step(actionType, args) -> {observation,
// done} over a shared sandbox pool, reset() between episodes. Many Environments (one per live
// episode) share one pool; each program runs in a fresh namespace, so an episode carries no
// interpreter state from the one before.
import { defaultTools, type StepResult, type ToolRegistry } from './tools.ts';
import type { CodeExecutor } from './types.ts';

/** Options of an Environment. */
export interface EnvironmentOptions {
  /**
   * The actions it accepts (toolRegistry(config.tools), or one with further tools); default
   * execute_code and finish. The rollout dispatches through the same kind of registry.
   */
  tools?: ToolRegistry;
  /** Deadline per program; the pool's default when absent. */
  timeoutMs?: number;
}

/** One agent's view of the sandbox for one episode at a time. */
export class Environment {
  private readonly tools: ToolRegistry;
  private finished = false;
  private stepCount = 0;

  constructor(
    private readonly executor: CodeExecutor,
    private readonly options: EnvironmentOptions = {},
  ) {
    this.tools = options.tools ?? defaultTools();
  }

  /** Whether the current episode has ended (finish, or a timeout). */
  get done(): boolean {
    return this.finished;
  }

  /** Steps taken in the current episode. */
  get steps(): number {
    return this.stepCount;
  }

  /** Names of the actions this environment accepts. */
  actions(): string[] {
    return this.tools.names();
  }

  /** Applies one action. Unknown actions are an observation, not an error: the model can recover. */
  async step(actionType: string, args: Record<string, unknown> = {}): Promise<StepResult> {
    if (this.finished)
      throw new Error('Environment.step after the episode ended: call reset() first');
    this.stepCount += 1;
    const tool = this.tools.get(actionType);
    if (!tool) {
      return {
        observation: `Unknown action: ${actionType}. Available actions: ${this.tools.names().join(', ')}.`,
        done: false,
      };
    }
    const timeoutMs = this.options.timeoutMs;
    const result = await tool.run(
      args,
      timeoutMs === undefined
        ? { executor: this.executor }
        : { executor: this.executor, timeoutMs },
    );
    if (result.done) this.finished = true;
    return result;
  }

  /** Starts a new episode. Programs never share a namespace, so nothing else needs clearing. */
  async reset(): Promise<void> {
    this.finished = false;
    this.stepCount = 0;
  }
}
