// Model files at plain URLs (the page's demo model): with the folder's listing, whether a file
// exists is answered without a request, so a load asks only for files that are there (no 404 for
// the chat_template.jinja the demo lacks); the demo's listing is the folder's.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_FILES } from '../../src/model_files/demo_files.ts';
import { urlSource } from '../../src/model_files/url_source.ts';
import { loadTokenizer } from '../../src/tokenizer/tokenizer.ts';

const demoDir = join(import.meta.dirname, '..', '..', 'public', 'models', 'demo');

/** A fetch over the demo folder that records each request and answers 404 for a missing file. */
function folderFetch(requests: string[]): typeof fetch {
  return async (input, init) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    requests.push(`${method} ${url}`);
    const name = url.slice('http://demo.test/models/demo/'.length);
    const { readFile } = await import('node:fs/promises');
    if (!DEMO_FILES.includes(name)) return new Response(null, { status: 404 });
    const bytes = await readFile(join(demoDir, name));
    return new Response(method === 'HEAD' ? null : bytes, {
      headers: { 'content-length': String(bytes.byteLength) },
    });
  };
}

describe('urlSource', () => {
  it('the demo listing is the demo folder', () => {
    expect([...DEMO_FILES].sort()).toEqual(readdirSync(demoDir).sort());
  });

  it('with a listing, has() makes no request and the tokenizer asks only for files that exist', async () => {
    const requests: string[] = [];
    const source = urlSource(
      'http://demo.test/models/demo/',
      'demo',
      folderFetch(requests),
      DEMO_FILES,
    );
    expect(await source.has('chat_template.jinja')).toBe(false);
    expect(await source.has('tokenizer.json')).toBe(true);
    expect(requests).toEqual([]);
    const tokenizer = await loadTokenizer(source);
    expect(tokenizer.encode('hello').length).toBeGreaterThan(0);
    expect(requests.every((r) => r.startsWith('GET '))).toBe(true);
    expect(requests.some((r) => r.includes('chat_template.jinja'))).toBe(false);
  });

  it('without a listing, has() asks with HEAD', async () => {
    const requests: string[] = [];
    const source = urlSource('http://demo.test/models/demo/', 'demo', folderFetch(requests));
    expect(await source.has('chat_template.jinja')).toBe(false);
    expect(await source.has('config.json')).toBe(true);
    expect(requests).toEqual([
      'HEAD http://demo.test/models/demo/chat_template.jinja',
      'HEAD http://demo.test/models/demo/config.json',
    ]);
  });
});
