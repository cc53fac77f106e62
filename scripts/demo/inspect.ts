// Scores a model folder the way the recipe does (real rollouts, default rewards), at any sampling
// temperature: npx tsx scripts/demo/inspect.ts [DIR] [train|eval|search|search-eval] [temperature]
// [samples]. The search splits run with the search tool on. SHOW=N prints the first N transcripts.
// `copied` is the share of function-task episodes whose first program copies the prompt's signature
// and call exactly (copying.ts).
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { evalTasksFor, tasksFor } from '../../src/tasks/registry.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';
import { copyShares } from './copying.ts';
import { DEFAULT_EVAL, evaluate } from './evaluate.ts';
import { processExecutor } from './process_executor.ts';
import { SEARCH_TOOLS } from './transcripts_search.ts';

await tf.setBackend('wasm');
const [dir = 'public/models/demo', split = 'train', temperatureArg = '1', samplesArg = '2'] =
  process.argv.slice(2);
const SPLITS = ['train', 'eval', 'search', 'search-eval'];
if (!SPLITS.includes(split))
  throw new Error(`split must be one of ${SPLITS.join(', ')}, got ${JSON.stringify(split)}`);
const searching = split.startsWith('search');
const model = await CausalLM.load(directorySource(dir));
const tokenizer = await loadTokenizer(directorySource(dir));
const executor = processExecutor(DEFAULT_EVAL.timeoutMs);
const tasks = searching
  ? tasksFor(split)
  : split === 'train'
    ? tasksFor('seed+builtin')
    : evalTasksFor('seed+builtin');
const report = await evaluate(model, tokenizer, tasks, executor, {
  ...DEFAULT_EVAL,
  samples: Number(samplesArg),
  seed: 7,
  temperature: Number(temperatureArg),
  ...(searching ? { tools: SEARCH_TOOLS } : {}),
});
console.log(
  JSON.stringify({
    'pass@1': report.passAt1,
    answered: report.answered,
    ranCode: report.ranCode,
    searched: report.searched,
    searchedFirst: report.searchedFirst,
    meanTurns: report.meanTurns,
    copied: copyShares(report.trajectories.map((t) => t.messages)),
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
