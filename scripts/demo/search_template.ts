// What the search templates share (templates_search_*.ts): a template bound to its train task,
// wrong-name guesses that raise, wrong hand-rolled attempts, and the programs' usual shape.
import type { Rng } from '../../src/model/rng.ts';
import { SEARCH_TRAIN_SPECS } from '../../src/tasks/builtin/search_train.ts';
import { sample } from './template.ts';
import type { SearchInstance, SearchTemplate } from './transcripts_search.ts';

/** The first words of a prompt that asks for the standard library (the tasks' own wordings). */
export const STDLIB = ['Using the standard library,', 'Using a standard library function,'];

/** A call of a wrong name: `import module` + `module.name(args)`, or the bare name (NameError). */
export function guess(module: string | null, name: string, args: string, wrapper = 'print(%)') {
  const call = module ? `${module}.${name}(${args})` : `${name}(${args})`;
  return {
    code: `${module ? `import ${module}\n` : ''}${wrapper.replace('%', call)}\n`,
    note: '',
  };
}

/** A hand-rolled (wrong) attempt. */
export const attempt = (code: string) => ({
  code: code.endsWith('\n') ? code : `${code}\n`,
  note: '',
});

/** `import module` + `print(expression)`. */
export const uses = (module: string, expression: string) =>
  `import ${module}\nprint(${expression})\n`;

/** A list of `n` distinct ints in [lo, hi], in random order. */
export function ints(rng: Rng, n: number, lo: number, hi: number): number[] {
  return sample(
    rng,
    [...Array(hi - lo + 1).keys()].map((i) => i + lo),
    n,
  );
}

/**
 * A template for the train task `search/<name>`, of the task's kind (the index's name of the
 * intended function). Its queries include the task's own `query`, which the index's tests keep
 * finding the function.
 */
export function template(
  name: string,
  make: (rng: Rng) => Omit<SearchInstance, 'functionName'>,
): SearchTemplate {
  const spec = SEARCH_TRAIN_SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`templates_search: no search train task named ${name}`);
  return {
    taskId: `search/${name}`,
    kind: spec.kind,
    make(rng) {
      const instance = make(rng);
      const queries = instance.queries.includes(spec.query)
        ? instance.queries
        : [...instance.queries, spec.query];
      return { ...instance, queries, functionName: spec.kind };
    },
  };
}
