// Node entry: `npm run --silent cli -- <command> [options]` (docs/architecture.md §8). Every
// command prints JSON on stdout; an error prints {"error": "..."} and exits non-zero.
import { parseArgs, type CliArgs } from './cli/args.ts';

type Command = (args: CliArgs) => Promise<void>;

/** Commands by name, loaded lazily so `exec` does not pay for tfjs start-up and vice versa. */
const commands: Record<string, () => Promise<Command>> = {
  logits: async () => (await import('./cli/model_commands.ts')).logitsCommand,
  generate: async () => (await import('./cli/model_commands.ts')).generateCommand,
  exec: async () => (await import('./cli/exec_command.ts')).execCommand,
  loss: async () => (await import('./cli/loss_command.ts')).lossCommand,
  train: async () => (await import('./cli/train_command.ts')).trainCommand,
  lesson: async () => (await import('./cli/lesson_command.ts')).lessonCommand,
  eval: async () => (await import('./cli/eval_command.ts')).evalCommand,
  bench: async () => (await import('./cli/bench_command.ts')).benchCommand,
  score: async () => (await import('./cli/score_command.ts')).scoreCommand,
  'export-trl': async () => (await import('./cli/export_trl_command.ts')).exportTrlCommand,
  'make-shape-model': async () =>
    (await import('./cli/shape_model_command.ts')).makeShapeModelCommand,
};

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const load = name ? commands[name] : undefined;
  if (!load) {
    throw new Error(
      `unknown command ${JSON.stringify(name ?? '')}; available: ${Object.keys(commands).join(', ')}`,
    );
  }
  const command = await load();
  await command(parseArgs(rest));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    process.exit(1);
  },
);
