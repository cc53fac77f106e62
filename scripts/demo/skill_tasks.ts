// Fresh instances of the corpus's skills as tasks (scripts/demo/skills.ts): new names (a share made
// up), values and wordings drawn from a seed no corpus uses, each with the output its own solution
// prints as the expected output. A model scores on them only by reading the prompt: the step before
// the held-out tasks, which also need operations combined in ways no skill shows.
import type { CodeExecutor } from '../../src/env/types.ts';
import { Rng } from '../../src/model/rng.ts';
import { lastLine } from '../../src/rl/rewards.ts';
import type { Task } from '../../src/tasks/task.ts';
import { SKILLS } from './skills.ts';

/** A seed no recipe's corpus uses (corpora use the recipe's seed plus small offsets). */
export const SKILL_TASK_SEED = 90_001;

/** `count` tasks, cycling through the skills in order. */
export async function skillTasks(executor: CodeExecutor, count: number): Promise<Task[]> {
  const rng = new Rng(SKILL_TASK_SEED);
  const skills = [...new Set(SKILLS)];
  const tasks: Task[] = [];
  for (let i = 0; tasks.length < count; i++) {
    if (i > 4 * count) throw new Error('skill tasks: most instances printed nothing');
    const skill = skills[i % skills.length]!;
    const instance = skill.make(rng);
    const run = await executor.execute(instance.solution);
    const expected = run.ok ? lastLine(run.observation) : null;
    if (expected === null) continue;
    tasks.push({
      id: `${skill.taskId}#${i}`,
      source: 'custom',
      prompt: instance.prompt,
      expectedOutput: expected,
      tests: null,
      family: 'skills',
      kind: skill.taskId.slice('skill/'.length),
      difficulty: 1,
      split: 'eval',
      solution: instance.solution,
    });
  }
  return tasks;
}
