// `npm run --silent cli -- score --task FILE --code FILE [--code FILE …] [--timeout-ms MS]`: scores
// programs against one custom task exactly as a default run's reward stage would, one after another
// on one sandbox worker (as a run's episodes share one), and prints one line per program, in order:
// {"reward": x, "parts": {…}, "tests": {"passed": n, "total": m} | null, "tampered": […], "judgeLimits": […]}. Several
// programs are how a user checks that one episode cannot change another's verdict.
// Teachers use it to check a custom task before putting it in a lesson link; outside checks use
// it to judge a program without training anything. The task FILE is a custom task as JSON:
// {"prompt": …, "expectedOutput": …} or {"prompt": …, "tests": "assert …\n…"}.
import { readFile } from 'node:fs/promises';
import { createNodeSandboxPool } from '../env/node_pool.ts';
import type { SandboxPool } from '../env/pool.ts';
import { scoreTrajectory, type RewardSettings } from '../rl/rewards.ts';
import { newTrajectory, type Trajectory } from '../rl/types.ts';
import { presetConfig } from '../run/presets.ts';
import { resolveRun } from '../run/resolve.ts';
import { customTask, customTaskProblems, type CustomTaskInput } from '../tasks/custom.ts';
import type { Task } from '../tasks/task.ts';
import { numberOption, requireOption, type CliArgs } from './args.ts';

const USAGE = 'score --task FILE --code FILE [--code FILE …] [--timeout-ms MS]';

/** Reads a file for an option, or throws a message that names the option and the file. */
async function readOption(args: CliArgs, name: string): Promise<string> {
  return readNamed(name, requireOption(args, name));
}

/** Reads `file`, given as --`name`, or throws a message that names both. */
async function readNamed(name: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`cannot read --${name} ${file}: ${reason}`);
  }
}

/** The custom task in `text`, validated with the same messages a run link's tasks get. */
function parseTask(text: string, file: string): CustomTaskInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`--task ${file} is not JSON: ${(error as Error).message}`);
  }
  const problems = customTaskProblems(json, `the task in ${file}`);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return json as CustomTaskInput;
}

/** Prints each program's reward, its parts, its hidden tests' count and any tampering seen. */
export async function scoreCommand(args: CliArgs): Promise<void> {
  const unknown = [...args.options.keys(), ...args.flags].filter(
    (name) => !['task', 'code', 'timeout-ms'].includes(name),
  );
  if (unknown.length > 0) throw new Error(`score: unknown option --${unknown[0]}; usage: ${USAGE}`);
  if (args.positional.length > 0)
    throw new Error(`score takes no positional arguments; usage: ${USAGE}`);
  const taskFile = requireOption(args, 'task');
  const task = customTask(parseTask(await readOption(args, 'task'), taskFile), 0);
  const files = args.lists?.get('code') ?? [requireOption(args, 'code')];
  // Every program is read before any runs: a missing file is an error, not a partial report.
  const programs: string[] = [];
  for (const file of files) programs.push(await readNamed('code', file));
  const config = presetConfig('default');
  const timeoutMs = numberOption(args, 'timeout-ms', config.timeoutMs);
  if (!(timeoutMs > 0)) throw new Error(`--timeout-ms must be positive, got ${timeoutMs}`);
  const settings = { ...resolveRun(config).trainer.rewards, timeoutMs };
  const pool = await createNodeSandboxPool({
    size: 1,
    timeoutMs,
    maxOutputChars: config.maxOutputChars,
  });
  try {
    for (const code of programs) {
      const scored = await scoreProgram(code, task, settings, timeoutMs, pool);
      process.stdout.write(`${JSON.stringify(scored)}\n`);
    }
  } finally {
    await pool.close();
  }
}

/** One program as the agent's one executed turn, as the rollout records it, then its reward. */
async function scoreProgram(
  code: string,
  task: Task,
  settings: RewardSettings,
  timeoutMs: number,
  pool: SandboxPool,
): Promise<{
  reward: number;
  parts: object;
  tests: unknown;
  tampered: string[];
  judgeLimits: string[];
}> {
  const started = performance.now();
  const result = await pool.execute(code, { timeoutMs });
  const trajectory: Trajectory = {
    ...newTrajectory({
      id: 'score',
      taskId: task.id,
      groupIndex: 0,
      sampleIndex: 0,
      prompt: task.prompt,
    }),
    turns: [
      {
        generated: { start: 0, end: 0 },
        observation: null,
        text: code,
        stop: 'eos',
        action: { type: 'execute_code', code, unterminated: false },
        execution: { code, result, durationMs: performance.now() - started },
      },
    ],
    timedOut: result.timedOut,
    finishReason: result.timedOut ? 'timeout' : 'max_turns',
  };
  const scored = await scoreTrajectory(trajectory, task, settings, pool);
  return {
    reward: scored.reward,
    parts: scored.rewardParts,
    tests: scored.testCounts,
    tampered: scored.tampered,
    judgeLimits: scored.judgeLimits ?? [],
  };
}
