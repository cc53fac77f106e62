// `npm run bench`: the figures of src/bench/run_bench.ts as indented JSON on stdout (progress on
// stderr); `--only model,update,sandbox` picks sections. `--compare REV [--runs N]` runs them
// alternately on commit REV and on this working tree instead (scripts/bench/compare.ts).
import { runBench } from '../src/bench/run_bench.ts';

const args = process.argv.slice(2);
const onlyIndex = args.indexOf('--only');
try {
  const result = args.includes('--compare')
    ? await (async () => {
        const { compareBench, compareOptions } = await import('./bench/compare.ts');
        return compareBench(compareOptions(args));
      })()
    : await runBench(onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '') : undefined);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exit(0);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
  process.exit(1);
}
