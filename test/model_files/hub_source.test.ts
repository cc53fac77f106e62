// hubSource against a local mock hub on 127.0.0.1 with the hub's URL layout: streaming progress,
// a cache that makes the second load request-free, sharded weights, and errors a person can act on.
// Also the browser Cache API adapter (over a stand-in CacheStorage) and localFilesSource.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserCache } from '../../src/model_files/browser_cache.ts';
import { hubSource, memoryCache, type FileCache } from '../../src/model_files/hub_source.ts';
import { localFilesSource } from '../../src/model_files/local_files_source.ts';
import { readJson, type ModelSource } from '../../src/model_files/source.ts';
import { loadTokenizer } from '../../src/tokenizer/index.ts';
import { BYTES_DIR } from '../tokenizer/helpers.ts';
import { startMockHub, type MockHub } from '../helpers/mock_hub.ts';

const REPO = 'tiny-org/tiny-llama';
const root = mkdtempSync(join(tmpdir(), 'mock-hub-'));
const repoDir = join(root, 'tiny-org', 'tiny-llama');
/** Deterministic bytes so content checks are exact. */
const pattern = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);
const shards = {
  'model-00001-of-00002.safetensors': pattern(200_000, 1),
  'model-00002-of-00002.safetensors': pattern(90_000, 2),
};

/** What a model loader reads: tokenizer (with its has() probes), config, index, every shard. */
async function loadModelFiles(
  source: ModelSource,
  onProgress?: (path: string, loaded: number, total: number | null) => void,
) {
  const tokenizer = await loadTokenizer(source);
  const config = await readJson<{ hidden_size: number }>(source, 'config.json');
  const index = await readJson<{ weight_map: Record<string, string> }>(
    source,
    'model.safetensors.index.json',
  );
  const files = [...new Set(Object.values(index.weight_map))].sort();
  const weights = [];
  for (const file of files)
    weights.push(await source.readFile(file, (loaded, total) => onProgress?.(file, loaded, total)));
  return { tokenizer, config, files, weights };
}

describe('hubSource with a mock hub', () => {
  let hub: MockHub;
  let plainHub: MockHub; // a plain file server: 404s without the hub's X-Error-Code headers
  beforeAll(async () => {
    mkdirSync(repoDir, { recursive: true });
    mkdirSync(join(root, 'tiny-org', 'gated-model'), { recursive: true });
    copyFileSync(join(BYTES_DIR, 'tokenizer.json'), join(repoDir, 'tokenizer.json'));
    copyFileSync(join(BYTES_DIR, 'tokenizer_config.json'), join(repoDir, 'tokenizer_config.json'));
    writeFileSync(
      join(repoDir, 'config.json'),
      JSON.stringify({ architectures: ['LlamaForCausalLM'], hidden_size: 8 }),
    );
    writeFileSync(
      join(repoDir, 'model.safetensors.index.json'),
      JSON.stringify({
        metadata: { total_size: 290_000 },
        weight_map: {
          'a.weight': 'model-00001-of-00002.safetensors',
          'b.weight': 'model-00002-of-00002.safetensors',
          'c.weight': 'model-00001-of-00002.safetensors',
        },
      }),
    );
    for (const [file, bytes] of Object.entries(shards)) writeFileSync(join(repoDir, file), bytes);
    writeFileSync(join(repoDir, 'broken.json'), '{"hidden_size": 8,');
    writeFileSync(join(repoDir, 'unsized.bin'), pattern(50_000, 3));
    hub = await startMockHub({ root, gated: ['tiny-org/gated-model'], unsized: ['unsized.bin'] });
    plainHub = await startMockHub({ root, errorHeaders: false });
  });
  afterAll(async () => {
    await hub.close();
    await plainHub.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('downloads with byte progress against Content-Length', async () => {
    const events: [number, number | null][] = [];
    const bytes = await hubSource({ repo: REPO, baseUrl: hub.url }).readFile(
      'model-00001-of-00002.safetensors',
      (l, t) => events.push([l, t]),
    );
    expect(bytes).toEqual(shards['model-00001-of-00002.safetensors']);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.every(([, total]) => total === 200_000)).toBe(true);
    expect(events.map(([loaded]) => loaded)).toEqual(
      [...events.map(([loaded]) => loaded)].sort((a, b) => a - b),
    );
    expect(events.at(-1)).toEqual([200_000, 200_000]);
  });

  it('reports an unknown total without Content-Length, then the final size', async () => {
    const events: [number, number | null][] = [];
    const bytes = await hubSource({ repo: REPO, baseUrl: hub.url }).readFile(
      'unsized.bin',
      (l, t) => events.push([l, t]),
    );
    expect(bytes.byteLength).toBe(50_000);
    expect(events[0]).toEqual([0, null]);
    expect(events.at(-1)).toEqual([50_000, 50_000]);
  });

  it('loads a sharded model, then loads it again from the cache with zero requests', async () => {
    const cache = memoryCache();
    const progress = new Map<string, number>();
    const before = hub.requests.length;
    const first = await loadModelFiles(
      hubSource({ repo: REPO, baseUrl: hub.url, cache }),
      (file, loaded) => progress.set(file, loaded),
    );
    expect(first.files).toEqual(Object.keys(shards));
    expect(first.weights).toEqual(Object.values(shards));
    expect(progress).toEqual(
      new Map([
        ['model-00001-of-00002.safetensors', 200_000],
        ['model-00002-of-00002.safetensors', 90_000],
      ]),
    );
    expect(first.config.hidden_size).toBe(8);
    expect(first.tokenizer.eosIds).toEqual([258]);
    expect(hub.requests.length - before).toBeGreaterThanOrEqual(6);

    const afterFirst = hub.requests.length;
    const cachedProgress: [number, number | null][] = [];
    const second = await loadModelFiles(
      hubSource({ repo: REPO, baseUrl: hub.url, cache }),
      (_f, l, t) => cachedProgress.push([l, t]),
    );
    expect(hub.requests.length).toBe(afterFirst); // not one request, not even a HEAD
    expect(second.weights).toEqual(first.weights);
    expect(second.tokenizer.encode('hi')).toEqual([104, 105]);
    expect(cachedProgress).toEqual([
      [200_000, 200_000],
      [90_000, 90_000],
    ]);
  });

  it('answers has() with HEAD requests and remembers the answer in the cache', async () => {
    const cache = memoryCache();
    const source = hubSource({ repo: REPO, baseUrl: hub.url, cache });
    const before = hub.requests.length;
    expect(await source.has('config.json')).toBe(true);
    expect(await source.has('generation_config.json')).toBe(false);
    expect(hub.requests.slice(before)).toEqual([
      'HEAD /tiny-org/tiny-llama/resolve/main/config.json',
      'HEAD /tiny-org/tiny-llama/resolve/main/generation_config.json',
    ]);
    expect(await source.has('config.json')).toBe(true);
    expect(await source.has('generation_config.json')).toBe(false);
    expect(hub.requests.length).toBe(before + 2);
  });

  it('shares one download between concurrent readers of a file', async () => {
    const source = hubSource({ repo: REPO, baseUrl: hub.url });
    const before = hub.requests.length;
    const [a, b] = await Promise.all([
      source.readFile('config.json'),
      source.readFile('config.json'),
    ]);
    expect(a).toEqual(b);
    expect(hub.requests.length - before).toBe(1);
  });

  it('says whether the file, the repo or the revision is missing', async () => {
    await expect(
      hubSource({ repo: REPO, baseUrl: hub.url }).readFile('model.safetensors'),
    ).rejects.toThrow(/model.safetensors not found in tiny-org\/tiny-llama@main.*repo exists/);
    await expect(
      hubSource({ repo: 'nobody/nothing', baseUrl: hub.url }).readFile('config.json'),
    ).rejects.toThrow(
      /model nobody\/nothing was not found on http:\/\/127.0.0.1:\d+, or it is private/,
    );
    await expect(
      hubSource({ repo: REPO, revision: 'v9', baseUrl: hub.url }).readFile('config.json'),
    ).rejects.toThrow(/revision "v9" of tiny-org\/tiny-llama does not exist/);
    await expect(
      hubSource({ repo: 'nobody/nothing', baseUrl: hub.url }).has('config.json'),
    ).rejects.toThrow(/was not found/);
  });

  it('tells a missing file from a missing repo on a server without the hub headers', async () => {
    await expect(
      hubSource({ repo: REPO, baseUrl: plainHub.url }).readFile('model.safetensors'),
    ).rejects.toThrow(/model.safetensors not found in tiny-org\/tiny-llama@main.*repo exists/);
    await expect(
      hubSource({ repo: 'nobody/nothing', baseUrl: plainHub.url }).readFile('tokenizer.json'),
    ).rejects.toThrow(/model nobody\/nothing@main not found .*no tokenizer.json, no config.json/);
  });

  it('explains gated models, an unreachable hub and corrupt JSON', async () => {
    await expect(
      hubSource({ repo: 'tiny-org/gated-model', baseUrl: hub.url }).readFile('config.json'),
    ).rejects.toThrow(
      /gated or private.*HTTP 401.*Access to model tiny-org\/gated-model is restricted.*access token/,
    );
    // Port 1 on loopback: nothing listens, so the connection is refused at once.
    await expect(
      hubSource({ repo: REPO, baseUrl: 'http://127.0.0.1:1' }).readFile('config.json'),
    ).rejects.toThrow(/cannot reach the hub at http:\/\/127.0.0.1:1.*pick the folder/);
    await expect(
      readJson(hubSource({ repo: REPO, baseUrl: hub.url }), 'broken.json'),
    ).rejects.toThrow(/broken.json is not valid JSON/);
    expect(() => hubSource({ repo: 'not a repo id' })).toThrow(/not a hub model id.*owner\/name/);
  });

  it('sends the access token when given one', async () => {
    const seen: (string | null)[] = [];
    const fetchSpy: typeof fetch = async (input, init) => {
      seen.push(new Headers(init?.headers).get('authorization'));
      return fetch(input, init);
    };
    await hubSource({ repo: REPO, baseUrl: hub.url, token: 'hf_secret', fetch: fetchSpy }).readFile(
      'config.json',
    );
    expect(seen).toEqual(['Bearer hf_secret']);
  });

  it('refuses and does not cache a download cut short', async () => {
    const cache = memoryCache();
    const truncated: typeof fetch = async () =>
      new Response(new Uint8Array(10), { headers: { 'content-length': '20' } });
    await expect(
      hubSource({ repo: REPO, baseUrl: hub.url, fetch: truncated, cache }).readFile('config.json'),
    ).rejects.toThrow(/cut short: got 10 of 20 bytes/);
    expect(cache.keys()).toEqual([]);
  });

  it('keeps loading when the cache cannot store (quota), with a warning', async () => {
    const full: FileCache = {
      ...memoryCache(),
      put: async () => {
        throw new Error('QuotaExceededError');
      },
    };
    const warnings: string[] = [];
    const bytes = await hubSource({
      repo: REPO,
      baseUrl: hub.url,
      cache: full,
      onWarning: (w) => warnings.push(w),
    }).readFile('config.json');
    expect(JSON.parse(new TextDecoder().decode(bytes))).toMatchObject({ hidden_size: 8 });
    expect(warnings.join()).toMatch(/could not cache .*config.json.*QuotaExceededError/);
  });

  it('caches through the Cache API adapter', async () => {
    const cache = browserCache('models', fakeCacheStorage());
    const first = await hubSource({ repo: REPO, baseUrl: hub.url, cache }).readFile(
      'model-00002-of-00002.safetensors',
    );
    const before = hub.requests.length;
    const second = await hubSource({ repo: REPO, baseUrl: hub.url, cache }).readFile(
      'model-00002-of-00002.safetensors',
    );
    expect(second).toEqual(first);
    expect(hub.requests.length).toBe(before);
    expect(() => browserCache('x', undefined)).toThrow(/Cache API is not available/);
  });
});

describe('localFilesSource', () => {
  it('reads picked folder files by their path inside the folder, with progress', async () => {
    const picked = [
      withRelativePath(new File(['{"hidden_size": 8}'], 'config.json'), 'Tiny/config.json'),
      withRelativePath(new File([pattern(1000, 5)], 'model.safetensors'), 'Tiny/model.safetensors'),
    ];
    const source = localFilesSource(picked);
    expect(source.name).toBe('Tiny');
    expect(await source.has('config.json')).toBe(true);
    expect(await source.has('Tiny/config.json')).toBe(false);
    const events: [number, number | null][] = [];
    expect(await source.readFile('model.safetensors', (l, t) => events.push([l, t]))).toEqual(
      pattern(1000, 5),
    );
    expect(events.at(-1)).toEqual([1000, 1000]);
    expect(await readJson(source, 'config.json')).toEqual({ hidden_size: 8 });
  });

  it('uses names for singly picked files and path maps as given; lists what exists when a file is missing', async () => {
    const single = localFilesSource([new File(['x'], 'config.json')]);
    expect(single.name).toBe('local files');
    expect(await single.has('config.json')).toBe(true);
    const mapped = localFilesSource(new Map([['tokenizer.json', new Blob(['{}'])]]), 'dropped');
    await expect(mapped.readFile('config.json')).rejects.toThrow(
      /config.json is not among the picked files \(tokenizer.json\).*whole model folder/,
    );
  });
});

/** Node's File has no webkitRelativePath; browsers set it on files from a picked folder. */
function withRelativePath(file: File, path: string): File {
  Object.defineProperty(file, 'webkitRelativePath', { value: path });
  return file;
}

/** Just enough of CacheStorage for browserCache: open() → match/put keyed by URL string. */
function fakeCacheStorage(): CacheStorage {
  const stores = new Map<string, Map<string, Response>>();
  const open = async (name: string) => {
    const entries = stores.get(name) ?? new Map<string, Response>();
    stores.set(name, entries);
    return {
      match: async (key: string) => entries.get(key)?.clone(),
      put: async (key: string, response: Response) => void entries.set(key, response),
    } as unknown as Cache;
  };
  return { open } as unknown as CacheStorage;
}
