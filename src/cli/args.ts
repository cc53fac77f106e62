/** Parsed command-line options: `--name value` pairs, bare `--flag`s, and positional arguments. */
export interface CliArgs {
  /** Each option's value (the last, where an option is given more than once). */
  options: Map<string, string>;
  /** Every value of each option, in order (`--code A --code B`); absent where not parsed here. */
  lists?: Map<string, string[]>;
  flags: Set<string>;
  positional: string[];
}

/**
 * Parses `--key value`, `--key=value` and `--flag` (a `--key` followed by another `--…` or
 * nothing).
 */
export function parseArgs(argv: string[]): CliArgs {
  const options = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const set = (name: string, value: string) => {
    options.set(name, value);
    lists.set(name, [...(lists.get(name) ?? []), value]);
  };
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) flags.add(arg.slice(2));
    else {
      set(arg.slice(2), next);
      i++;
    }
  }
  return { options, lists, flags, positional };
}

/** The value of a required option, or an error that says how to pass it. */
export function requireOption(args: CliArgs, name: string): string {
  const value = args.options.get(name);
  if (value === undefined) throw new Error(`missing --${name} <value>`);
  return value;
}

/** A numeric option with a default; a value that is not a finite number is an error. */
export function numberOption(args: CliArgs, name: string, fallback: number): number {
  const raw = args.options.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value))
    throw new Error(`--${name} must be a number, got ${JSON.stringify(raw)}`);
  return value;
}
