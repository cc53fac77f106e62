// Model files at plain URLs under one base (the embedded demo model the page serves from
// `models/demo/`). Streams downloads so progress is reported as bytes arrive.
import type { ModelSource } from './source.ts';

/** A ModelSource over `${baseUrl}${path}`; `baseUrl` ends with '/'. */
export function urlSource(baseUrl: string, name = baseUrl, fetchImpl: typeof fetch = (...args) => fetch(...args)): ModelSource {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return {
    name,
    async readFile(path, onProgress) {
      let response: Response;
      try {
        response = await fetchImpl(base + path);
      } catch (error) {
        throw new Error(`cannot fetch ${base + path}: ${(error as Error).message}. Is the page's server still running?`);
      }
      if (!response.ok) throw new Error(`${path} not found at ${base} (HTTP ${response.status})`);
      const total = Number(response.headers.get('Content-Length')) || null;
      if (!response.body) return new Uint8Array(await response.arrayBuffer());
      const chunks: Uint8Array[] = [];
      let loaded = 0;
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.byteLength;
        onProgress?.(loaded, total);
      }
      const bytes = new Uint8Array(loaded);
      let offset = 0;
      for (const chunk of chunks) { bytes.set(chunk, offset); offset += chunk.byteLength; }
      return bytes;
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
