// Keeps the sandbox pool's memory snapshot (pool.ts) between visits, in the Cache API, so a page
// opened again starts its Python workers from it instead of loading Pyodide cold. The key names the
// build (browser_pool.ts passes a content-hashed file's address), so a new build never restores an
// old build's snapshot, and saving one drops every other. Pyodide also refuses a snapshot of another
// Pyodide build; the pool replaces a snapshot that does not restore with one it makes.

/** Where a snapshot is kept between pools. */
export interface SnapshotStore {
  /** The kept snapshot, or null when there is none. */
  load(): Promise<Uint8Array | null>;
  /** Keeps `snapshot` in place of any other. */
  save(snapshot: Uint8Array): Promise<void>;
}

/** The part of the Cache API this file uses (the browser's `caches`; tests pass a fake). */
export interface CacheStorageLike {
  open(name: string): Promise<{
    match(key: string): Promise<Response | undefined>;
    put(key: string, response: Response): Promise<void>;
    keys(): Promise<readonly { url: string }[]>;
    delete(key: string): Promise<boolean>;
  }>;
}

/** The Cache API's cache that holds the snapshot (hub files are in another, browser_cache.ts). */
export const SNAPSHOT_CACHE = 'sandbox-snapshot';

/** A store in `caches` under `key`, an absolute http(s) address that is never fetched. */
export function cacheSnapshotStore(caches: CacheStorageLike, key: string): SnapshotStore {
  return {
    async load() {
      const response = await (await caches.open(SNAPSHOT_CACHE)).match(key);
      return response ? new Uint8Array(await response.arrayBuffer()) : null;
    },
    async save(snapshot) {
      const cache = await caches.open(SNAPSHOT_CACHE);
      for (const request of await cache.keys())
        if (request.url !== key) await cache.delete(request.url);
      await cache.put(
        key,
        new Response(snapshot as BlobPart, {
          headers: { 'Content-Type': 'application/octet-stream' },
        }),
      );
    },
  };
}
