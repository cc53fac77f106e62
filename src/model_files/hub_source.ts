// Model files from the Hugging Face hub, or any server with its `/{repo}/resolve/{revision}/{file}`
// layout (a local mirror, the tests' mock hub). Downloads stream with byte progress and go into a
// pluggable cache (the browser's Cache API in the page, memory in tests), so a reload downloads
// nothing. Errors say what went wrong in terms a person can act on.
import type { ModelSource } from './source.ts';

/** Where downloaded files are kept between loads. Keys are URLs. */
export interface FileCache {
  /** The bytes stored under `key`, or null. */
  get(key: string): Promise<Uint8Array | null>;
  /** Whether `key` is stored, without reading it. */
  has(key: string): Promise<boolean>;
  /** Stores `bytes` under `key`; may reject (e.g. storage quota exceeded). */
  put(key: string, bytes: Uint8Array): Promise<void>;
}

/** Options for hubSource. */
export interface HubSourceOptions {
  /** "owner/name", e.g. "Qwen/Qwen2.5-0.5B-Instruct". */
  repo: string;
  /** Branch, tag or commit. Default "main". */
  revision?: string;
  /** The hub's address. Default "https://huggingface.co"; tests point it at a local server. */
  baseUrl?: string;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
  /** Where to keep downloads; null for none. Default: none. */
  cache?: FileCache | null;
  /** A hub access token, for gated or private repos. */
  token?: string;
  /** Aborts every request of this source. */
  signal?: AbortSignal;
  /**
   * Told about problems that do not stop the load (a cache write that failed). Default
   * console.warn.
   */
  onWarning?: (message: string) => void;
}

/** A hub-backed ModelSource that also says where each file lives. */
export interface HubSource extends ModelSource {
  readonly repo: string;
  readonly revision: string;
  readonly baseUrl: string;
  /** The download URL of `path`. */
  url(path: string): string;
}

type Progress = (loadedBytes: number, totalBytes: number | null) => void;

const REPO_ID = /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/;

/** A ModelSource that downloads `${baseUrl}/${repo}/resolve/${revision}/${path}`. */
export function hubSource(options: HubSourceOptions): HubSource {
  const { repo, revision = 'main', token, signal } = options;
  if (!REPO_ID.test(repo)) {
    throw new Error(
      `${JSON.stringify(repo)} is not a hub model id. Fix: use "owner/name", e.g. "Qwen/Qwen2.5-0.5B-Instruct".`,
    );
  }
  const baseUrl = (options.baseUrl ?? 'https://huggingface.co').replace(/\/+$/, '');
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const cache = options.cache ?? null;
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const name = baseUrl === 'https://huggingface.co' ? repo : `${repo} (${baseUrl})`;
  const where = `${repo}@${revision}`;
  const url = (path: string) =>
    `${baseUrl}/${repo}/resolve/${encodeURIComponent(revision)}/${path.split('/').map(encodeURIComponent).join('/')}`;
  const inFlight = new Map<string, Promise<Uint8Array>>();

  const request = async (method: 'GET' | 'HEAD', path: string): Promise<Response> => {
    try {
      return await fetchFn(url(path), {
        method,
        signal,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
    } catch (error) {
      if (signal?.aborted) throw new Error(`download of ${path} from ${where} was cancelled`);
      throw new Error(
        `cannot reach the hub at ${baseUrl} to get ${path} of ${repo} (${(error as Error).message}). ` +
          "You may be offline, or a proxy, CORS or the page's security policy blocks it. " +
          'Fix: check the connection, or download the model files and pick the folder instead.',
      );
    }
  };

  /** Turns a failed response into an error that says which of repo, revision or file is wrong. */
  const failure = async (response: Response, path: string): Promise<Error> => {
    const code = response.headers.get('x-error-code');
    const hubMessage = response.headers.get('x-error-message');
    const detail = hubMessage ? ` (hub: ${hubMessage})` : '';
    if (code === 'RepoNotFound') {
      return new Error(
        `model ${repo} was not found on ${baseUrl}, or it is private${detail}. Fix: check the id's spelling, or pick a local folder.`,
      );
    }
    if (response.status === 401 || response.status === 403) {
      return new Error(
        `${repo} is gated or private: the hub refused access to ${path} (HTTP ${response.status})${detail}. ` +
          "Fix: accept the model's license on huggingface.co and provide an access token, or download the files and pick the folder.",
      );
    }
    if (response.status === 404) {
      if (code === 'RevisionNotFound')
        return new Error(
          `revision ${JSON.stringify(revision)} of ${repo} does not exist${detail}. Fix: use a branch, tag or commit that exists, e.g. "main".`,
        );
      if (code === 'EntryNotFound' || (path !== 'config.json' && (await exists('config.json')))) {
        return new Error(
          `${path} not found in ${where}${detail}. The repo exists but lacks this file: it may not be a supported model (Llama/Qwen2/Qwen3 with safetensors weights).`,
        );
      }
      return new Error(
        `model ${where} not found on ${baseUrl} (no ${path}, no config.json). Fix: check the id and revision.`,
      );
    }
    return new Error(
      `the hub answered HTTP ${response.status} ${response.statusText} for ${path} of ${where}${detail}. Fix: try again later.`,
    );
  };

  /** A HEAD request: true on 2xx, false on 404; access and network problems throw. */
  const exists = async (path: string): Promise<boolean> => {
    const response = await request('HEAD', path);
    // read to its (empty) end: Chromium reports a HEAD response left unread as an aborted request
    await response.arrayBuffer().catch(() => null);
    if (response.ok) return true;
    if (
      response.status === 404 &&
      response.headers.get('x-error-code') !== 'RepoNotFound' &&
      response.headers.get('x-error-code') !== 'RevisionNotFound'
    )
      return false;
    throw await failure(response, path);
  };

  const remember = async (key: string, bytes: Uint8Array) => {
    if (!cache) return;
    try {
      await cache.put(key, bytes);
    } catch (error) {
      warn(
        `could not cache ${key} (${(error as Error).message}); it will be downloaded again next time. Free some browser storage to keep models offline.`,
      );
    }
  };

  const download = async (path: string, onProgress?: Progress): Promise<Uint8Array> => {
    const response = await request('GET', path);
    if (!response.ok) throw await failure(response, path);
    const bytes = await readBody(response, `${path} of ${where}`, onProgress);
    await remember(url(path), bytes);
    return bytes;
  };

  return {
    name,
    repo,
    revision,
    baseUrl,
    url,
    async readFile(path, onProgress) {
      const cached = cache ? await cache.get(url(path)) : null;
      if (cached) {
        onProgress?.(cached.byteLength, cached.byteLength);
        return cached;
      }
      // Two readers of one file (the loader and a progress panel) share one download.
      let pending = inFlight.get(path);
      if (!pending) {
        pending = download(path, onProgress).finally(() => inFlight.delete(path));
        inFlight.set(path, pending);
      }
      return pending;
    },
    async has(path) {
      const key = url(path);
      if (cache && ((await cache.has(key)) || (await cache.has(`${key}?present`)))) return true;
      if (cache && (await cache.has(`${key}?absent`))) return false;
      const found = await exists(path);
      // Remember the answer too, so a second load of the same model makes no request at all.
      await remember(`${key}?${found ? 'present' : 'absent'}`, new Uint8Array(0));
      return found;
    },
  };
}

/**
 * Reads a response body chunk by chunk, reporting progress against Content-Length when it is known.
 */
export async function readBody(
  response: Response,
  what: string,
  onProgress?: Progress,
): Promise<Uint8Array> {
  const encoding = response.headers.get('content-encoding');
  const lengthHeader = response.headers.get('content-length');
  // A compressed body's Content-Length counts compressed bytes, not the bytes we receive.
  const total =
    lengthHeader !== null && (!encoding || encoding === 'identity') ? Number(lengthHeader) : null;
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onProgress?.(bytes.byteLength, bytes.byteLength);
    return bytes;
  }
  const reader = response.body.getReader();
  // Preallocate when the size is known, so a 1 GB file does not briefly need 2 GB.
  const whole = total !== null ? new Uint8Array(total) : null;
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  onProgress?.(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (whole && loaded + value.byteLength <= whole.byteLength) whole.set(value, loaded);
    else chunks.push(value);
    loaded += value.byteLength;
    onProgress?.(loaded, total);
  }
  if (total !== null && loaded !== total) {
    throw new Error(
      `download of ${what} was cut short: got ${loaded} of ${total} bytes. Fix: try again.`,
    );
  }
  if (whole) return whole;
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  onProgress?.(loaded, loaded);
  return bytes;
}

/** A FileCache in memory, for tests and for a session without persistent storage. */
export function memoryCache(): FileCache & { readonly keys: () => string[] } {
  const entries = new Map<string, Uint8Array>();
  return {
    async get(key) {
      return entries.get(key) ?? null;
    },
    async has(key) {
      return entries.has(key);
    },
    async put(key, bytes) {
      entries.set(key, bytes);
    },
    keys: () => [...entries.keys()],
  };
}
