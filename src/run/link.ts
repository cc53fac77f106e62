// Run links (docs/architecture.md §5): `#v=1&seed=0&g=8&ct=…` — the schema version, the seed
// (always), and every non-default field under its short key from the schema. Custom tasks are JSON,
// compressed with deflate-raw and base64url-encoded. Decoding goes field by field: a bad or unknown
// field falls back to its default and is listed with the reason, so an old or damaged link still
// opens.
import {
  CONFIG_SCHEMA,
  FIELD_NAMES,
  defaultConfig,
  type FieldName,
  type FieldSpec,
  type RunConfig,
} from './config.ts';
import { checkField, validateConfig } from './config_validation.ts';

/** Bump when a field changes meaning; old links then report what they could not restore. */
export const LINK_VERSION = 1;
/** Most bytes custom tasks may inflate to (a guard against a crafted link). */
const MAX_INFLATED_BYTES = 256 * 1024;

/** Link-only settings that are not part of the run. */
export interface LinkOptions {
  /** Start training as soon as the page has loaded. */
  autostart?: boolean;
  /** Lesson mode: names of controls the page hides. */
  hide?: string[];
}

/** A field that could not be restored, and why. */
export interface Fallback {
  field: string;
  reason: string;
}

/** What a link restores. */
export interface DecodedLink {
  config: RunConfig;
  /**
   * Fields that fell back to their defaults (or were ignored), with reasons a person can act on.
   */
  fallbacks: Fallback[];
  autostart: boolean;
  hide: string[];
}

const FIELD_BY_KEY: ReadonlyMap<string, FieldName> = new Map(
  FIELD_NAMES.map((name) => [CONFIG_SCHEMA[name].key, name]),
);
const RESERVED = new Set(['v', 'autostart', 'hide']);

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

/** The `#…` fragment for a run: version, seed, non-default fields, then link options. */
export async function encodeLink(config: RunConfig, options: LinkOptions = {}): Promise<string> {
  const defaults = defaultConfig();
  const parts = [`v=${LINK_VERSION}`];
  for (const name of FIELD_NAMES) {
    if (name !== 'seed' && JSON.stringify(config[name]) === JSON.stringify(defaults[name]))
      continue;
    parts.push(
      `${CONFIG_SCHEMA[name].key}=${escapeValue(await encodeValue(CONFIG_SCHEMA[name], config[name]))}`,
    );
  }
  if (options.autostart) parts.push('autostart=1');
  if (options.hide && options.hide.length > 0)
    parts.push(`hide=${escapeValue(options.hide.join(','))}`);
  return `#${parts.join('&')}`;
}

/** Restores a run from a link (a full URL or just its fragment); never throws on bad input. */
export async function decodeLink(link: string): Promise<DecodedLink> {
  const hash = link.indexOf('#');
  const params = new URLSearchParams(hash >= 0 ? link.slice(hash + 1) : link);
  const fallbacks: Fallback[] = [];
  const raw: Record<string, unknown> = {};
  const version = params.get('v');
  if (version === null)
    fallbacks.push({
      field: 'v',
      reason: `the link has no schema version; read as version ${LINK_VERSION}`,
    });
  else if (version !== String(LINK_VERSION)) {
    fallbacks.push({
      field: 'v',
      reason: `the link is schema version ${JSON.stringify(version)}, this page reads version ${LINK_VERSION}; fields it cannot read use their defaults`,
    });
  }
  for (const [key, text] of params) {
    if (RESERVED.has(key)) continue;
    const name: FieldName | undefined = FIELD_BY_KEY.get(key);
    if (!name) {
      fallbacks.push({
        field: key,
        reason: `unknown key ${JSON.stringify(key)} ignored (a link from another version?)`,
      });
      continue;
    }
    try {
      const checked = checkField(name, await decodeValue(CONFIG_SCHEMA[name], text));
      if ('error' in checked) throw new Error(checked.error);
      raw[name] = checked.value;
    } catch (error) {
      fallbacks.push({
        field: name,
        reason: `${(error as Error).message.split('\n')[0]} (using the default)`,
      });
    }
  }
  const { config, errors } = validateConfig(raw);
  for (const error of errors)
    fallbacks.push({ field: error.field, reason: `${error.message} (using the default)` });
  const hide = (params.get('hide') ?? '')
    .split(',')
    .filter((name) => /^[A-Za-z0-9_-]{1,40}$/.test(name))
    .slice(0, 50);
  return { config, fallbacks, autostart: params.get('autostart') === '1', hide };
}
