// Scores a model folder the way the recipe does (real rollouts, default rewards), at any sampling
// temperature: npx tsx scripts/demo/inspect.ts [DIR] [train|eval] [temperature] [samples].
// SHOW=N prints the first N transcripts.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { evalTasksFor, tasksFor } from '../../src/tasks/registry.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';
import { DEFAULT_EVAL, evaluate } from './evaluate.ts';
import { processExecutor } from './process_executor.ts';

await tf.setBackend('wasm');
const [dir = 'public/models/demo', split = 'train', temperatureArg = '1', samplesArg = '2'] =
  process.argv.slice(2);
if (split !== 'train' && split !== 'eval')
  throw new Error(`split must be train or eval, got ${JSON.stringify(split)}`);
const model = await CausalLM.load(directorySource(dir));
const tokenizer = await loadTokenizer(directorySource(dir));
const executor = processExecutor(DEFAULT_EVAL.timeoutMs);
const tasks = split === 'train' ? tasksFor('seed+builtin') : evalTasksFor('seed+builtin');
const report = await evaluate(model, tokenizer, tasks, executor, {
  ...DEFAULT_EVAL,
  samples: Number(samplesArg),
  seed: 7,
  temperature: Number(temperatureArg),
});
console.log(
  JSON.stringify({
    'pass@1': report.passAt1,
    answered: report.answered,
    ranCode: report.ranCode,
    meanTurns: report.meanTurns,
    seconds: report.seconds,
    tasks: report.byTask,
  }),
);
for (const t of report.trajectories.slice(0, Number(process.env.SHOW ?? 0))) {
  console.log(`===== ${t.taskId} passed=${t.passed} (${t.finishReason})`);
  for (const m of t.messages.slice(1)) console.log(`[${m.role}] ${m.content}`);
}
executor.close();
model.dispose();
