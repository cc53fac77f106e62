// `npm run bench`: the figures of src/bench/run_bench.ts as indented JSON on stdout (progress on
// stderr); `--only model,update,sandbox` picks sections.
import { runBench } from '../src/bench/run_bench.ts';

const onlyIndex = process.argv.indexOf('--only');
try {
  const result = await runBench(onlyIndex > 0 ? (process.argv[onlyIndex + 1] ?? '') : undefined);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
  process.exit(1);
}
