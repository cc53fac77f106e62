// The demo model's own programs for the TRL rewards parity test (test/run/trl_parity.test.ts):
// real rollouts of public/models/demo on the seed+builtin and search tasks (the search tasks with
// the search tool on), 4 samples a task at temperature 1, seed 48, and from each episode that ran
// code its last program and its final answer. Deterministic for the model, the seed and the
// sampler; written to test/fixtures/trl/demo_samples.json. Run again after the demo model changes:
//   node scripts/relaxed-simd.mjs scripts/demo/trl_samples.ts   (or: npx tsx scripts/demo/trl_samples.ts)
import { writeFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { CausalLM } from '../../src/model/model.ts';
import { directorySource } from '../../src/model_files/node_source.ts';
import { tasksFor } from '../../src/tasks/registry.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';
import { DEFAULT_EVAL, evaluate } from './evaluate.ts';
import { processExecutor } from './process_executor.ts';
import { SEARCH_TOOLS } from './transcripts_search.ts';

const OUT = 'test/fixtures/trl/demo_samples.json';
const SETTINGS = { ...DEFAULT_EVAL, samples: 4, seed: 48, temperature: 1 };

await tf.setBackend('wasm');
const dir = 'public/models/demo';
const model = await CausalLM.load(directorySource(dir));
const tokenizer = await loadTokenizer(directorySource(dir));
const executor = processExecutor(SETTINGS.timeoutMs);
const samples: { task: string; code: string; answer: string | null }[] = [];
const seen = new Set<string>();
for (const [tasks, tools] of [
  [tasksFor('seed+builtin'), undefined],
  [tasksFor('search'), SEARCH_TOOLS],
] as const) {
  const report = await evaluate(model, tokenizer, tasks, executor, {
    ...SETTINGS,
    ...(tools ? { tools } : {}),
  });
  for (const t of report.trajectories) {
    const executed = t.turns.filter((turn) => turn.execution !== null);
    const last = executed.at(-1);
    if (!last?.execution) continue;
    const sample = { task: t.taskId, code: last.execution.code, answer: t.finalAnswer ?? null };
    const key = JSON.stringify(sample);
    if (seen.has(key)) continue;
    seen.add(key);
    samples.push(sample);
  }
}
writeFileSync(OUT, `${JSON.stringify({ settings: SETTINGS, samples }, null, 1)}\n`);
console.log(`${samples.length} programs -> ${OUT}`);
executor.close();
model.dispose();
