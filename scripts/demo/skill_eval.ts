// Scores a model folder on fresh skill instances (skill_tasks.ts), overall and by skill:
//   npx tsx scripts/demo/skill_eval.ts [DIR] [tasks] [samples] [temperature]
// SHOW=N prints the first N episodes. `copied`: shares of first programs with the prompt's exact
// signature and call (copying.ts).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';
import { copyShares } from './copying.ts';
import { DEFAULT_EVAL, evaluate } from './evaluate.ts';
import { processExecutor } from './process_executor.ts';
import { skillTasks } from './skill_tasks.ts';

await tf.setBackend('wasm');
const [dir = 'public/models/demo', countArg = '54', samplesArg = '2', temperatureArg = '0.7'] =
  process.argv.slice(2);
const executor = processExecutor(DEFAULT_EVAL.timeoutMs);
const tasks = await skillTasks(executor, Number(countArg));
const model = await CausalLM.load(directorySource(dir));
const tokenizer = await loadTokenizer(directorySource(dir));
const report = await evaluate(model, tokenizer, tasks, executor, {
  ...DEFAULT_EVAL,
  samples: Number(samplesArg),
  seed: 7,
  temperature: Number(temperatureArg),
});
for (const t of report.trajectories.slice(0, Number(process.env.SHOW ?? 0))) {
  const task = tasks[t.groupIndex]!;
  console.log(`===== ${task.id} (expected ${task.expectedOutput})\n${task.prompt}`);
  for (const turn of t.turns) console.log(`[assistant] ${turn.text}`);
}
const bySkill = new Map<string, number[]>();
for (const task of tasks)
  bySkill.set(task.kind, [...(bySkill.get(task.kind) ?? []), report.byTask[task.id] ?? 0]);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  JSON.stringify({
    'pass@1': report.passAt1,
    ranCode: report.ranCode,
    answered: report.answered,
    copied: copyShares(report.trajectories.map((t) => t.messages)),
    bySkill: Object.fromEntries([...bySkill].map(([k, v]) => [k, Number(mean(v).toFixed(2))])),
  }),
);
process.exit(0);
