// Downloaded model files kept in the browser's Cache API (window and workers alike), so reloading
// the page loads a hub model without downloading it again.
import type { FileCache } from './hub_source.ts';

/**
 * A FileCache over the Cache API. `storage` defaults to the global `caches`, which exists only in
 * secure contexts (https, localhost); tests pass their own.
 */
export function browserCache(name = 'agentic-rl-models', storage?: CacheStorage): FileCache {
  const store = storage ?? (globalThis as { caches?: CacheStorage }).caches;
  if (!store) {
    throw new Error(
      'the browser Cache API is not available here (it needs https or localhost); hub models will download on every load.',
    );
  }
  let opened: Promise<Cache> | null = null;
  const cache = () => (opened ??= store.open(name));
  return {
    async get(key) {
      const response = await (await cache()).match(key);
      return response ? new Uint8Array(await response.arrayBuffer()) : null;
    },
    async has(key) {
      return (await (await cache()).match(key)) !== undefined;
    },
    async put(key, bytes) {
      const headers = {
        'content-type': 'application/octet-stream',
        'content-length': String(bytes.byteLength),
      };
      // Our downloads are backed by plain ArrayBuffers (never shared memory), which Response
      // accepts.
      await (await cache()).put(key, new Response(bytes as Uint8Array<ArrayBuffer>, { headers }));
    },
  };
}
