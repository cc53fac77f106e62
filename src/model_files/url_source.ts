// Model files at plain URLs under one base (the embedded demo model the page serves from
// `models/demo/`). Streams downloads with the hub source's reader: progress as bytes arrive, and
// a download cut short is an error. With the folder's listing, whether a file exists is answered
// without a request; without it, by a HEAD request.
import { readBody } from './hub_source.ts';
import type { ModelSource } from './source.ts';

/**
 * A ModelSource over `${baseUrl}${path}`; `baseUrl` ends with '/'. `files`, the folder's listing
 * when known, answers `has` with no request: a load asks only for files that exist, so it logs no
 * 404 for an optional file the folder lacks.
 */
export function urlSource(
  baseUrl: string,
  name = baseUrl,
  fetchImpl: typeof fetch = (...args) => fetch(...args),
  files: readonly string[] | null = null,
): ModelSource {
  const listed = files ? new Set(files) : null;
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return {
    name,
    async readFile(path, onProgress) {
      let response: Response;
      try {
        response = await fetchImpl(base + path);
      } catch (error) {
        throw new Error(
          `cannot fetch ${base + path}: ${(error as Error).message}. Is the page's server still running?`,
        );
      }
      if (!response.ok) throw new Error(`${path} not found at ${base} (HTTP ${response.status})`);
      return readBody(response, `${path} at ${base}`, onProgress);
    },
    async has(path) {
      if (listed) return listed.has(path);
      try {
        const response = await fetchImpl(base + path, { method: 'HEAD' });
        // read to its (empty) end: Chromium reports a HEAD response left unread as aborted
        await response.arrayBuffer().catch(() => null);
        return response.ok;
      } catch {
        return false;
      }
    },
  };
}
