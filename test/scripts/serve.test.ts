import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic } from '../../scripts/serve.mjs';

describe('serve.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'serve-'));
  writeFileSync(join(dir, 'index.html'), '<p>hi</p>');
  writeFileSync(join(dir, 'a.wasm'), new Uint8Array([0, 97, 115, 109]));
  let isolated: { url: string; close: () => Promise<void> };
  let plain: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    isolated = await serveStatic({ dir });
    plain = await serveStatic({ dir, isolate: false });
  });
  afterAll(async () => {
    await isolated.close();
    await plain.close();
  });

  it('serves with the cross-origin isolation headers and a CSP', async () => {
    const response = await fetch(isolated.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('<p>hi</p>');
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
  });

  it('gives WASM its MIME type (streaming compilation needs it)', async () => {
    const response = await fetch(`${isolated.url}a.wasm`);
    expect(response.headers.get('content-type')).toBe('application/wasm');
  });

  it('leaves the isolation headers out when asked (tests of the non-isolated path)', async () => {
    const response = await fetch(plain.url);
    expect(response.headers.get('cross-origin-embedder-policy')).toBeNull();
  });

  it('refuses paths outside the served folder and answers 404 for missing files', async () => {
    const outside = await fetch(`${isolated.url}..%2f..%2fetc%2fpasswd`);
    expect([403, 404]).toContain(outside.status);
    expect((await fetch(`${isolated.url}missing.js`)).status).toBe(404);
  });
});
