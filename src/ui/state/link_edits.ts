// What Copy link writes when the configuration form has edits that are not applied yet: the link
// carries every valid edit (so it opens the run the form shows), and names each edit it cannot
// carry (text that does not parse, a value the schema refuses, custom tests that do not compile, an
// edit that clashes with another field) with the form's reason. Pure: the form and the page call it.
import { FIELD_NAMES, type FieldName, type RunConfig } from '../../run/config.ts';
import { validateConfig } from '../../run/config_validation.ts';

/** The configuration form as Copy link reads it (config_panel.ts keeps it current). */
export interface FormEdits {
  /** The form's values; a field whose input is refused keeps its last good value here. */
  draft: RunConfig;
  /** Fields whose input the form refuses, with the message shown under them. */
  invalid: ReadonlyMap<string, string>;
}

/** One unapplied edit and what the link does with it. */
export interface FieldEdit {
  field: FieldName;
  /** The applied value. */
  from: unknown;
  /** The form's value (for a refused input: its last good value). */
  to: unknown;
}

/** What a link made from the applied run and the form carries. */
export interface LinkEdits {
  /** The run the link writes: the applied one plus every carried edit. */
  config: RunConfig;
  /** Unapplied edits the link carries. */
  carried: FieldEdit[];
  /** Edits it leaves out (the link keeps the applied value), each with why. */
  leftOut: (FieldEdit & { reason: string })[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The applied run plus every edit of the form that is valid with the others. */
export function linkEdits(applied: RunConfig, form: FormEdits | null): LinkEdits {
  if (form === null) return { config: applied, carried: [], leftOut: [] };
  const edit = (field: FieldName): FieldEdit => ({
    field,
    from: applied[field],
    to: form.draft[field],
  });
  const leftOut: LinkEdits['leftOut'] = [];
  let carried: FieldEdit[] = [];
  for (const field of FIELD_NAMES) {
    const refused = form.invalid.get(field);
    if (refused !== undefined) leftOut.push({ ...edit(field), reason: refused });
    else if (!same(form.draft[field], applied[field])) carried.push(edit(field));
  }
  const build = (edits: readonly FieldEdit[]) => {
    const config = structuredClone(applied) as Record<string, unknown>;
    for (const { field, to } of edits) config[field] = structuredClone(to);
    return validateConfig(config);
  };
  // Edits valid alone may clash with each other or with an applied field (tools and rewards, tasks
  // and custom tasks): leave out the edits the schema names, then any single edit whose removal
  // settles the rest, and at worst every edit.
  for (
    let checked = build(carried);
    checked.errors.length > 0 && carried.length > 0;
    checked = build(carried)
  ) {
    const named = carried.filter((e) => checked.errors.some((error) => error.field === e.field));
    const settling = named.length > 0 ? [] : carried.filter((e) => validWithout(e));
    const drop = named.length > 0 ? named : settling.length > 0 ? [settling[0]!] : carried;
    const reason = checked.errors.map((error) => error.message).join(' ');
    for (const e of drop) {
      const own = checked.errors.find((error) => error.field === e.field);
      leftOut.push({ ...e, reason: own?.message ?? reason });
    }
    carried = carried.filter((e) => !drop.includes(e));
  }
  return { config: build(carried).config, carried, leftOut };

  function validWithout(left: FieldEdit): boolean {
    return build(carried.filter((e) => e !== left)).errors.length === 0;
  }
}

/** A value as the link box shows it: short, one line. */
export function editText(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((v) => typeof v !== 'object')
        ? value.join(', ')
        : JSON.stringify(value);
  return text.length > 48 ? `${text.slice(0, 47)}…` : text;
}
