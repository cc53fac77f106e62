// The episode loop: generate -> parse -> execute -> observe for every episode of a step (the
// reference design's RolloutWorker; ours is the thread an overlapped run samples on).
//
// Token-in/token-out: each episode keeps one growing id sequence. The ids the model sampled are
// appended as they were sampled (action mask 1, with their sampling log-probs); chat markup and
// observations are appended as the ids of the text the chat template adds after them (mask 0),
// computed by encodeChatDelta, never by re-tokenizing the conversation. A template that rewrites
// the past (the delta cannot be computed) ends the episode and flags it prefix-broken.
//
// Scheduling: every ready episode decodes in one batch. An episode whose code is running in the
// sandbox is not ready; it rejoins the next generation round once its observation is in, so a
// slow execution holds back only its own episode. Each episode samples from its own Rng stream, so
// its tokens do not depend on which other episodes happened to share its batch. With
// `maxSequences`, at most that many episodes are under way at once (their KV caches are what the
// sampler keeps): the next starts when one ends, and the ended one's cache is freed (`forget`).
//
// Tools: every parsed action (execute_code, finish, a tool_call such as search) runs through the
// run's ToolRegistry (src/env/tools.ts), whose tools also write the system prompt and give the
// parser their call formats. Each turn records the tool it called; a tool_call's observation goes
// back as a user turn (mask 0) by the same encodeChatDelta path as an execution's.
import type { Rng } from '../model/rng.ts';
import type { Task } from '../tasks/task.ts';
import { encodeChatDelta } from '../tokenizer/chat_delta.ts';
import type { Tokenizer } from '../tokenizer/tokenizer.ts';
import {
  actionTool,
  parseAction,
  systemPrompt,
  userTurnAfter,
  type ParserName,
} from './actions.ts';
import {
  newTrajectory,
  type Action,
  type Message,
  type Trajectory,
  type Turn,
  type TurnStop,
} from './types.ts';
import { DEFAULT_TOOL_NAMES, toolRegistry, type ToolRegistry } from '../env/tools.ts';
import type { CodeExecutor } from '../env/types.ts';

/** What the episode loop needs from the policy: batched sampling with one Rng stream per sequence. */
export interface Sampler {
  /** Highest context length the model accepts. */
  readonly maxPositions: number;
  sample(
    contexts: number[][],
    rngs: Rng[],
    options: { maxNewTokens: number; temperature: number; eosIds: number[] },
  ): Promise<{ ids: number[][]; logprobs: number[][]; finishReasons: TurnStop[] }>;
  /**
   * Frees what sampling kept between calls (an episode's cache from one turn to the next); called
   * once the episode loop ends.
   */
  release?(): void;
  /** Frees what sampling kept for a sequence that will not be sampled again (an ended episode). */
  forget?(ids: readonly number[]): void;
}

/** The episode loop's settings (a subset of RunConfig). */
export interface EpisodeLoopOptions {
  groupSize: number;
  maxTurns: number;
  maxNewTokens: number;
  temperature: number;
  parser: ParserName;
  timeoutMs: number;
  /**
   * The run's tools (config `tools`) when `deps.tools` gives no registry; absent: execute_code and
   * finish.
   */
  tools?: readonly string[];
  /** Step number, for trajectory ids. */
  step: number;
  /**
   * Most episodes under way at once (default: all of them). Bounds the KV caches the sampler
   * keeps, for models whose cache at the step's size would not fit (memory_estimate.ts
   * rolloutSequences); the episodes and their tokens are the same either way.
   */
  maxSequences?: number;
}

/** Time spent, for the step's metrics. */
export interface EpisodeLoopTiming {
  generateSeconds: number;
  /**
   * Wall-clock time the loop waited on the sandbox with nothing to generate. Executions overlap
   * with one another and with generation, so summing their durations (each turn keeps its own, in
   * `execution.durationMs`) overstates the phase: in the page that sum was 5-9 s per ~5 s step.
   */
  sandboxSeconds: number;
  generatedTokens: number;
  /** Calls of the model for a batch's next token: each sample call runs its longest sequence's. */
  decodeSteps: number;
}

interface Episode {
  trajectory: Trajectory;
  task: Task;
  rng: Rng;
  /** Under way: counted against maxSequences until it ends. */
  started: boolean;
  done: boolean;
  /** The tool call (an execution, a search) in flight, if any. */
  pending: Promise<void> | null;
}

/** What the episode loop needs besides its options. */
export interface EpisodeLoopDeps {
  sampler: Sampler;
  tokenizer: Tokenizer;
  executor: CodeExecutor;
  rng: Rng;
  /** The run's tools; absent: toolRegistry(options.tools ?? execute_code + finish). */
  tools?: ToolRegistry;
  /** Sees each generation round and each wait on the sandbox (the step's timeline). */
  record?: (kind: 'generate' | 'waiting', startMs: number, endMs: number) => void;
}

/** The arguments a tool gets for a parsed action. */
function actionArgs(action: Exclude<Action, { type: 'format_error' }>): Record<string, unknown> {
  if (action.type === 'execute_code') return { code: action.code };
  if (action.type === 'finish') return { answer: action.answer };
  return { input: action.input };
}

/** Runs `groupSize` episodes of every task; resolves when all have ended. */
export async function runEpisodes(
  tasks: readonly Task[],
  deps: EpisodeLoopDeps,
  options: EpisodeLoopOptions,
): Promise<{ trajectories: Trajectory[]; timing: EpisodeLoopTiming }> {
  const { sampler, tokenizer, executor } = deps;
  const tools = deps.tools ?? toolRegistry(options.tools ?? DEFAULT_TOOL_NAMES);
  const system = systemPrompt(tools);
  const timing: EpisodeLoopTiming = {
    generateSeconds: 0,
    sandboxSeconds: 0,
    generatedTokens: 0,
    decodeSteps: 0,
  };
  const episodes: Episode[] = [];
  tasks.forEach((task, groupIndex) => {
    for (let sampleIndex = 0; sampleIndex < options.groupSize; sampleIndex++) {
      const trajectory = newTrajectory({
        id: `${options.step}/${groupIndex}/${sampleIndex}`,
        taskId: task.id,
        groupIndex,
        sampleIndex,
        prompt: task.prompt,
      });
      trajectory.messages = [
        { role: 'system', content: system },
        { role: 'user', content: task.prompt },
      ];
      trajectory.ids = tokenizer.encodeChat(trajectory.messages, { addGenerationPrompt: true });
      if (trajectory.ids.length + 1 >= sampler.maxPositions) {
        // it could never answer, and the update cannot score a sequence past the context
        throw new Error(
          `task ${task.id}: its prompt is ${trajectory.ids.length} tokens with the system prompt and chat template, and the model's context (max_position_embeddings) is ${sampler.maxPositions}, so there is no room to answer. ` +
            "Fix: shorten the task's prompt or leave the task out, or use a model with a longer context.",
        );
      }
      trajectory.actionMask = trajectory.ids.map(() => 0);
      trajectory.oldLogprobs = trajectory.ids.map(() => 0);
      episodes.push({
        trajectory,
        task,
        rng: deps.rng.split(),
        started: false,
        done: false,
        pending: null,
      });
    }
  });

  const limit = Math.max(1, options.maxSequences ?? episodes.length);
  try {
    for (;;) {
      // start episodes in order while fewer than `limit` are under way
      let underWay = episodes.filter((e) => e.started && !e.done).length;
      for (const episode of episodes) {
        if (underWay >= limit) break;
        if (!episode.started) {
          episode.started = true;
          underWay++;
        }
      }
      const ready = episodes.filter((e) => e.started && !e.done && !e.pending);
      for (const episode of ready) {
        if (episode.trajectory.ids.length + 1 >= sampler.maxPositions) end(episode, 'context_full');
      }
      const batch = ready.filter((e) => !e.done);
      if (batch.length === 0) {
        const inFlight = episodes.flatMap((e) => (e.pending ? [e.pending] : []));
        if (inFlight.length === 0) {
          if (episodes.some((e) => !e.started)) continue; // the ones that ended make room
          break;
        }
        const waited = performance.now();
        await Promise.race(inFlight);
        timing.sandboxSeconds += (performance.now() - waited) / 1000;
        deps.record?.('waiting', waited, performance.now());
        continue;
      }
      const started = performance.now();
      const result = await sampler.sample(
        batch.map((e) => e.trajectory.ids),
        batch.map((e) => e.rng),
        {
          maxNewTokens: Math.min(
            options.maxNewTokens,
            ...batch.map((e) => sampler.maxPositions - e.trajectory.ids.length),
          ),
          temperature: options.temperature,
          eosIds: tokenizer.eosIds as number[],
        },
      );
      timing.generateSeconds += (performance.now() - started) / 1000;
      deps.record?.('generate', started, performance.now());
      timing.decodeSteps += Math.max(0, ...result.ids.map((ids) => ids.length));
      batch.forEach((episode, i) => {
        timing.generatedTokens += result.ids[i]!.length;
        afterGeneration(episode, result.ids[i]!, result.logprobs[i]!, result.finishReasons[i]!);
      });
    }
  } finally {
    sampler.release?.(); // an episode's cache is only valid for the weights it was computed with
  }
  return { trajectories: episodes.map((e) => e.trajectory), timing };

  function end(episode: Episode, reason: Trajectory['finishReason']): void {
    episode.done = true;
    episode.trajectory.finishReason = reason;
    sampler.forget?.(episode.trajectory.ids);
  }

  /** Records a sampled turn, then answers a format error or runs the action's tool. */
  function afterGeneration(
    episode: Episode,
    generated: number[],
    logprobs: number[],
    stop: TurnStop,
  ): void {
    const t = episode.trajectory;
    const start = t.ids.length;
    t.ids.push(...generated);
    t.actionMask.push(...generated.map(() => 1));
    t.oldLogprobs!.push(...logprobs);
    const text = tokenizer.decode(generated, { skipSpecialTokens: true });
    const parsed = parseAction(text, options.parser, tools);
    const name = actionTool(parsed);
    const tool = name === null ? undefined : tools.get(name);
    // an action whose tool this run lacks (code in a run without execute_code) is a format error
    // that names the actions there are, so the model can recover as from any other
    const action: Action =
      name !== null && !tool
        ? {
            type: 'format_error',
            observation: `Format error: ${name} is not available here. Available actions: ${tools.names().join(', ')}.`,
          }
        : parsed;
    if (stop === 'length') t.truncated = true;
    const turn: Turn = {
      generated: { start, end: t.ids.length },
      observation: null,
      text,
      stop,
      action,
      execution: null,
      tool: tool ? name : null,
      call: null,
    };
    t.turns.push(turn);
    const lastTurn = t.turns.length >= options.maxTurns;

    if (action.type === 'format_error') {
      if (lastTurn) {
        appendAssistant(t, generated);
        end(episode, 'max_turns');
        return;
      }
      observe(episode, generated, action.observation);
      return;
    }
    // any other action has its tool in the registry (see `action` above)
    const toolName = name!;
    const started = performance.now();
    episode.pending = tool!
      .run(actionArgs(action), { executor, timeoutMs: options.timeoutMs })
      .then(
        (result) => {
          const durationMs = performance.now() - started;
          if (action.type === 'execute_code' && result.exec)
            turn.execution = { code: action.code, result: result.exec, durationMs };
          if (action.type === 'tool_call')
            turn.call = {
              tool: action.tool,
              input: action.input,
              observation: result.observation,
              durationMs,
            };
          if (action.type === 'finish') {
            t.finalAnswer = action.answer;
            appendAssistant(t, generated);
            end(episode, 'final_answer');
          } else if (result.exec?.timedOut) {
            t.timedOut = true;
            appendAssistant(t, generated);
            end(episode, 'timeout');
          } else if (result.done) {
            // no built-in tool gets here (finish and a timeout are above); a registered tool may
            // still end the episode, which is not an answer
            t.rewardErrors.push({ part: toolName, message: `${toolName} ended the episode` });
            appendAssistant(t, generated);
            end(episode, 'error');
          } else if (lastTurn) {
            appendAssistant(t, generated);
            end(episode, 'max_turns');
          } else {
            observe(episode, generated, userTurnAfter(action, result.observation)!);
          }
        },
        (error: unknown) => {
          // The pool turns code failures into observations; a rejection means the sandbox (or a
          // tool) itself broke.
          t.rewardErrors.push({
            part: action.type === 'tool_call' ? toolName : 'sandbox',
            message: error instanceof Error ? error.message : String(error),
          });
          appendAssistant(t, generated);
          end(episode, 'error');
        },
      )
      .finally(() => {
        episode.pending = null;
      });
  }

  /**
   * Appends the observation turn's ids (mask 0) after the sampled ids, or ends a broken episode.
   */
  function observe(episode: Episode, generated: number[], userText: string): void {
    const t = episode.trajectory;
    const user: Message = { role: 'user', content: userText };
    const delta = encodeChatDelta(tokenizer, {
      messages: t.messages,
      generatedIds: generated,
      newMessages: [user],
    });
    if (!delta.ok) {
      t.prefixBroken = true;
      t.rewardErrors.push({ part: 'prefix', message: delta.reason });
      appendAssistant(t, generated);
      end(episode, 'error');
      return;
    }
    if (t.ids.length + delta.ids.length + 1 >= sampler.maxPositions) {
      // No room to answer the observation: stop here, so no sequence outgrows the model's context.
      appendAssistant(t, generated);
      end(episode, 'context_full');
      return;
    }
    const start = t.ids.length;
    t.messages.push({ role: 'assistant', content: delta.assistantMessage.content }, user);
    t.ids.push(...delta.ids);
    t.actionMask.push(...delta.ids.map(() => 0));
    t.oldLogprobs!.push(...delta.ids.map(() => 0));
    t.turns[t.turns.length - 1]!.observation = { start, end: t.ids.length };
  }

  function appendAssistant(t: Trajectory, generated: number[]): void {
    const last = generated[generated.length - 1];
    const body =
      last !== undefined && tokenizer.eosIds.includes(last) ? generated.slice(0, -1) : generated;
    t.messages.push({ role: 'assistant', content: tokenizer.decode(body) });
  }
}
