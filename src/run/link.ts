// Run links (docs/architecture.md §5): `#v=2&p=search&g=8&seed=3&ct=…` — the version, the preset
// the run starts from (`p`; none means `default`, the run the page opens on), every field that
// differs from that preset under its short key from the schema, and the seed (always). Custom tasks
// are JSON, compressed with deflate-raw and base64url-encoded. Version 1 links (the only version
// before links started from a preset) meant the schema's defaults plus their fields, with `p` the
// parser; they still open to exactly that. Decoding goes field by field: a bad or unknown field
// keeps its base value and is listed with the reason (an error), so an old or damaged link still
// opens; things that do not change the run, like a missing `v`, are notices. A bad link option
// (`autostart`, `hide`) is an option error: the run is as written, the lesson is not.
import {
  CONFIG_SCHEMA,
  FIELD_NAMES,
  defaultConfig,
  type FieldName,
  type FieldSpec,
  type RunConfig,
} from './config.ts';
import { checkField, validateConfig } from './config_validation.ts';
import { LESSONS } from './lessons.ts';
import {
  type HideName,
  type LinkOptions,
  readAutostart,
  readHide,
  readLesson,
} from './link_options.ts';
import { PRESETS, presetConfig, type PresetName } from './presets.ts';

export { HIDE_NAMES, type HideName, type LinkOptions } from './link_options.ts';

/**
 * The version links are written in: 2 = a preset (`p`, `default` when absent) plus fields. Bump it
 * when a field or a preset changes meaning, and keep reading the old version as it was meant.
 */
export const LINK_VERSION = 2;
/** Most bytes custom tasks may inflate to (a guard against a crafted link). */
const MAX_INFLATED_BYTES = 256 * 1024;
/** The preset a link without `p` starts from: the run the page opens on. */
const BASE_PRESET = 'default' satisfies PresetName;
/**
 * Keys version 1 wrote that differ from the schema's today: the parser was `p` until `p` became
 * the preset.
 */
const V1_KEYS: Partial<Record<FieldName, string>> = { parser: 'p' };

/** Something about a link a person should know: the key or field, and why. */
export interface Fallback {
  field: string;
  reason: string;
}

/** What a link restores. */
export interface DecodedLink {
  config: RunConfig;
  /**
   * Errors: what the link asks for that this page could not restore (a bad value, an unknown key,
   * preset or version). Each such field keeps its base value; the reason says how to act on it.
   */
  fallbacks: Fallback[];
  /** Notices: the run is what the link says, but something is worth knowing (a key given twice). */
  notices: Fallback[];
  /** The version the link was read as. */
  version: number;
  /** The preset the run started from (`reference`, the schema's defaults, for version 1). */
  base: PresetName;
  /** What the link asks for (`autostart=1`); the page starts only a link without mistakes. */
  autostart: boolean;
  /** The accepted names of `hide=`, each once, in the link's order. */
  hide: HideName[];
  /** The lesson `lesson=` opens (its runs start from this link's run: seed, steps), or null. */
  lesson: string | null;
  /** A shared comparison's runs (`compare=`, read by src/run/compare_link.ts), or null. */
  compare: string | null;
  /**
   * Mistakes in the link-only options (`autostart`, `hide`): the run is as the link says, but the
   * lesson is not. Each names the key, the bad value and what is accepted.
   */
  optionErrors: Fallback[];
}

/** Link-only keys (not fields) of each version; `p`, the preset, came with version 2. */
const RESERVED: Record<number, ReadonlySet<string>> = {
  1: new Set(['v', 'autostart', 'hide', 'lesson', 'compare']),
  2: new Set(['v', 'p', 'autostart', 'hide', 'lesson', 'compare']),
};

/** Fields by link key, for a version. */
const FIELD_BY_KEY: Record<number, ReadonlyMap<string, FieldName>> = {
  1: new Map(FIELD_NAMES.map((name) => [V1_KEYS[name] ?? CONFIG_SCHEMA[name].key, name])),
  2: new Map(FIELD_NAMES.map((name) => [CONFIG_SCHEMA[name].key, name])),
};

/** The link key of a field in the version this page writes. */
function linkKey(name: FieldName): string {
  return CONFIG_SCHEMA[name].key;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('it is not base64url text');
  const binary = atob(
    text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4),
  );
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** deflate-raw + base64url of UTF-8 text (CompressionStream: browsers and Node 20). */
export async function compressText(text: string): Promise<string> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return toBase64Url(new Uint8Array(await new Response(stream).arrayBuffer()));
}

/** Inverse of compressText; rejects damaged data and anything that inflates past the limit. */
export async function decompressText(encoded: string): Promise<string> {
  const input = new Blob([fromBase64Url(encoded) as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream('deflate-raw'));
  const reader = input.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    total += chunk.value.length;
    if (total > MAX_INFLATED_BYTES) {
      await reader.cancel();
      throw new Error(`it inflates to more than ${MAX_INFLATED_BYTES} bytes`);
    }
    chunks.push(chunk.value);
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(
    await new Blob(chunks as Uint8Array<ArrayBuffer>[]).arrayBuffer(),
  );
}

/** A field's value as link text. */
async function encodeValue(spec: FieldSpec, value: unknown): Promise<string> {
  switch (spec.kind) {
    case 'int':
    case 'number':
      return value === null ? 'null' : String(value);
    case 'bool':
      return value ? '1' : '0';
    case 'enum':
    case 'string':
      return String(value);
    case 'list':
      return (value as string[]).join(',');
    case 'weights':
      return Object.entries(value as Record<string, number>)
        .map(([name, weight]) => `${name}:${weight}`)
        .join(',');
    case 'customTasks':
      return compressText(JSON.stringify(value));
  }
}

/** Link text back to a raw value (checkField validates it afterwards); throws with a reason. */
async function decodeValue(spec: FieldSpec, text: string): Promise<unknown> {
  const number = (s: string) => {
    if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s))
      throw new Error(`${JSON.stringify(s)} is not a number`);
    return Number(s);
  };
  switch (spec.kind) {
    case 'int':
    case 'number':
      return text === 'null' ? null : number(text);
    case 'bool':
      if (text !== '1' && text !== '0') throw new Error(`${JSON.stringify(text)} is not 1 or 0`);
      return text === '1';
    case 'enum':
    case 'string':
      return text;
    case 'list':
      return text === '' ? [] : text.split(',');
    case 'weights':
      return Object.fromEntries(
        text.split(',').map((pair) => {
          const [name, weight, extra] = pair.split(':');
          if (!name || weight === undefined || extra !== undefined)
            throw new Error(`${JSON.stringify(pair)} is not name:weight`);
          return [name, number(weight)];
        }),
      );
    case 'customTasks': {
      let json: string;
      try {
        json = await decompressText(text);
      } catch (error) {
        throw new Error(`the compressed tasks are damaged (${(error as Error).message})`);
      }
      try {
        return JSON.parse(json);
      } catch {
        throw new Error('the tasks are not valid JSON');
      }
    }
  }
}

/** Keeps `,` and `:` readable in values (both are safe in a fragment). */
const escapeValue = (value: string) =>
  encodeURIComponent(value).replace(/%2C/g, ',').replace(/%3A/g, ':');

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

let presetConfigs: ReadonlyMap<PresetName, RunConfig> | null = null;
/** Each preset's full config (computed once). */
function presets(): ReadonlyMap<PresetName, RunConfig> {
  presetConfigs ??= new Map([...PRESETS.keys()].map((name) => [name, presetConfig(name)]));
  return presetConfigs;
}

/** Fields a link from `base` must write for `config`: those that differ, and the seed. */
function fieldsToWrite(config: RunConfig, base: RunConfig): FieldName[] {
  return FIELD_NAMES.filter((name) => name === 'seed' || !same(config[name], base[name]));
}

/**
 * The preset a link for `config` starts from: the one it differs from in the fewest fields, the
 * page's default run on a tie (so a tweaked default run is `#v=2&…`, the reference run
 * `#v=2&p=reference&…`).
 */
export function linkBase(config: RunConfig): PresetName {
  let best: PresetName = BASE_PRESET;
  let fewest = fieldsToWrite(config, presets().get(BASE_PRESET)!).length;
  for (const [name, preset] of presets()) {
    const count = fieldsToWrite(config, preset).length;
    if (count < fewest) [best, fewest] = [name, count];
  }
  return best;
}

/**
 * The `#…` fragment for a run (what Copy link writes): the version, the preset it starts from
 * unless that is `default`, the fields that differ from it and the seed, then link options.
 */
export async function encodeLink(config: RunConfig, options: LinkOptions = {}): Promise<string> {
  const base = linkBase(config);
  const parts = [`v=${LINK_VERSION}`];
  if (base !== BASE_PRESET) parts.push(`p=${base}`);
  for (const name of fieldsToWrite(config, presets().get(base)!)) {
    const value = await encodeValue(CONFIG_SCHEMA[name], config[name]);
    parts.push(`${linkKey(name)}=${escapeValue(value)}`);
  }
  if (options.autostart) parts.push('autostart=1');
  if (options.hide && options.hide.length > 0)
    parts.push(`hide=${escapeValue(options.hide.join(','))}`);
  return `#${parts.join('&')}`;
}

/** The text after `#` (a bare fragment is taken as is; an address without `#` has none). */
function fragmentOf(link: string): string {
  const hash = link.indexOf('#');
  if (hash >= 0) return link.slice(hash + 1);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(link.trim()) ? '' : link;
}

/** The version a link is read as, and what to say about its `v`. */
function readVersion(written: string | null): {
  version: number;
  notice?: Fallback;
  error?: Fallback;
} {
  // a hand-written link (#p=search, #seed=7, a lesson's) is read as the current version: nothing
  // is lost, so nothing to say (every version-1 link wrote v=1)
  if (written === null) return { version: LINK_VERSION };
  if (Object.hasOwn(FIELD_BY_KEY, written)) return { version: Number(written) };
  return {
    version: LINK_VERSION,
    error: {
      field: 'v',
      reason: `the link is schema version ${JSON.stringify(written)}, this page reads versions ${Object.keys(FIELD_BY_KEY).join(' and ')}; read as version ${LINK_VERSION}, fields it cannot read keep their base values`,
    },
  };
}

/** The preset a version-2 link names with `p`, or an error and `default`. */
function readBase(written: string | null): { base: PresetName; error?: Fallback } {
  if (written === null) return { base: BASE_PRESET };
  if (PRESETS.has(written as PresetName)) return { base: written as PresetName };
  const parser = (CONFIG_SCHEMA.parser.values as readonly string[]).includes(written)
    ? ` (p is the preset since version 2; the parser's key is ${linkKey('parser')}, e.g. ${linkKey('parser')}=${written})`
    : '';
  return {
    base: BASE_PRESET,
    error: {
      field: 'p',
      reason: `unknown preset ${JSON.stringify(written)}${parser}. Fix: one of ${[...PRESETS.keys()].join(', ')}, or no p for the default run (using ${BASE_PRESET})`,
    },
  };
}

/** Why an unknown key is ignored, with the key it may have meant. */
function unknownKey(key: string): string {
  const field = FIELD_NAMES.find((name) => name.toLowerCase() === key.toLowerCase());
  return field
    ? `unknown key ${JSON.stringify(key)} ignored. Fix: ${field} is written ${linkKey(field)}=…`
    : `unknown key ${JSON.stringify(key)} ignored: no setting has it (a link from a newer version, or a typo?)`;
}

/**
 * Restores a run from a link (a full URL or just its fragment); never throws on bad input. An
 * empty link is the page's default run.
 */
export async function decodeLink(link: string): Promise<DecodedLink> {
  const params = new URLSearchParams(fragmentOf(link));
  const fallbacks: Fallback[] = [];
  const notices: Fallback[] = [];
  const empty = [...params.keys()].length === 0;
  const { version, notice, error } = empty
    ? { version: LINK_VERSION }
    : readVersion(params.get('v'));
  if (notice) notices.push(notice);
  if (error) fallbacks.push(error);
  let base: PresetName = 'reference';
  if (version !== 1) {
    const read = readBase(params.get('p'));
    base = read.base;
    if (read.error) fallbacks.push(read.error);
  }
  // version 1 meant the schema's defaults (the reference preset overrides nothing)
  const baseConfig = version === 1 ? defaultConfig() : structuredClone(presets().get(base)!);
  const keeping = version === 1 ? '(using the default)' : `(using the ${base} preset's value)`;
  const fields = FIELD_BY_KEY[version]!;
  const raw: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, text] of params) {
    if (seen.has(key))
      notices.push({
        field: key,
        reason: `${key} is given more than once; the last value is used`,
      });
    seen.add(key);
    if (RESERVED[version]!.has(key)) continue;
    const name = fields.get(key);
    if (!name) {
      fallbacks.push({ field: key, reason: unknownKey(key) });
      continue;
    }
    try {
      const checked = checkField(name, await decodeValue(CONFIG_SCHEMA[name], text));
      if ('error' in checked) throw new Error(checked.error);
      raw[name] = checked.value;
    } catch (error) {
      fallbacks.push({
        field: name,
        reason: `${(error as Error).message.split('\n')[0]} ${keeping}`,
      });
    }
  }
  const first = validateConfig({ ...baseConfig, ...raw });
  let config = first.config;
  for (const problem of first.errors)
    fallbacks.push({ field: problem.field, reason: `${problem.message} ${keeping}` });
  if (first.errors.length > 0 && version !== 1) {
    // validateConfig resets a field that clashes with another to the schema's default; a
    // version-2 link keeps its base's value instead, when that resolves the clash
    const retry: Record<string, unknown> = { ...first.config };
    for (const problem of first.errors)
      if (problem.field in baseConfig)
        retry[problem.field] = baseConfig[problem.field as FieldName];
    const second = validateConfig(retry);
    if (second.errors.length === 0) config = second.config;
  }
  const optionErrors: Fallback[] = [];
  const autostart = readAutostart(params.get('autostart'));
  if (autostart.error) optionErrors.push(autostart.error);
  const hide = readHide(params.get('hide'));
  if (hide.error) optionErrors.push(hide.error);
  const lesson = readLesson(params.get('lesson'), [...LESSONS.keys()]);
  if (lesson.error) optionErrors.push(lesson.error);
  return {
    config,
    fallbacks,
    notices,
    version,
    base,
    autostart: autostart.value,
    hide: hide.names,
    lesson: lesson.id,
    compare: params.get('compare'),
    optionErrors,
  };
}
