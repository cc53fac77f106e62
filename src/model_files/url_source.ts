// Model files at plain URLs under one base (the embedded demo model the page serves from
// `models/demo/`). Streams downloads with the hub source's reader: progress as bytes arrive, and
// a download cut short is an error.
import { readBody } from './hub_source.ts';
import type { ModelSource } from './source.ts';

/** A ModelSource over `${baseUrl}${path}`; `baseUrl` ends with '/'. */
export function urlSource(
  baseUrl: string,
  name = baseUrl,
  fetchImpl: typeof fetch = (...args) => fetch(...args),
): ModelSource {
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
      try {
        return (await fetchImpl(base + path, { method: 'HEAD' })).ok;
      } catch {
        return false;
      }
    },
  };
}
