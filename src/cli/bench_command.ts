// `bench [--only model,update,sandbox]`: the figures of `npm run bench` (src/bench/run_bench.ts),
// as one JSON line, progress on stderr. Its sections and what each figure means: src/bench/*.ts.
import type { CliArgs } from './args.ts';

export async function benchCommand(args: CliArgs): Promise<void> {
  const { runBench } = await import('../bench/run_bench.ts');
  const only = args.flags.has('only') ? '' : args.options.get('only'); // a bare --only: runBench says what it needs
  process.stdout.write(`${JSON.stringify(await runBench(only))}\n`);
}
