// Shared helpers for browser tests: Debian's Chromium through playwright-core, and the built page
// served with or without cross-origin isolation.
import { chromium, type Browser } from 'playwright-core';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../../scripts/ensure.mjs';
import { serveStatic } from '../../scripts/serve.mjs';

export const distDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');

/** Launches headless Chromium with the flags this closed network needs. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium not found: run `npm test` as root or `sudo apt-get install chromium`.');
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...extraArgs,
    ],
  });
}

/** Serves dist/ (built by test/global-setup.ts). `isolate: false` drops COOP/COEP. */
export function servePage(isolate = true): Promise<{ url: string; close: () => Promise<void> }> {
  return serveStatic({ dir: distDir, isolate });
}

/**
 * Builds the UI test harness (test/ui/harness: the real page on the fake trainer) into a
 * temporary folder and serves it with isolation headers. The harness never goes into dist/.
 */
export async function serveHarness(): Promise<{ url: string; close: () => Promise<void> }> {
  const { build } = await import('vite');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'ui', 'harness');
  const outDir = mkdtempSync(join(tmpdir(), 'ui-harness-'));
  await build({ root, configFile: false, logLevel: 'warn', base: './', build: { outDir, emptyOutDir: true, target: 'es2022' } });
  const server = await serveStatic({ dir: outDir, isolate: true });
  return { url: server.url, close: async () => { await server.close(); rmSync(outDir, { recursive: true, force: true }); } };
}

/**
 * Builds the sandbox harness page (test/e2e/pages/sandbox.html: the real sandbox pool, its worker
 * bundled by Vite with the project's config, Pyodide copied beside it) into a temporary folder,
 * once per process, and serves it with or without COOP/COEP. The harness never goes into dist/.
 */
let sandboxHarnessDir: Promise<string> | null = null;
export function serveSandboxHarness(isolate: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  sandboxHarnessDir ??= (async () => {
    const { build } = await import('vite');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const outDir = mkdtempSync(join(tmpdir(), 'sandbox-harness-'));
    process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
    await build({
      root: join(repo, 'test', 'e2e', 'pages'),
      configFile: join(repo, 'vite.config.ts'),
      logLevel: 'warn',
      base: './',
      build: { outDir, emptyOutDir: true, rollupOptions: { input: join(repo, 'test', 'e2e', 'pages', 'sandbox.html') } },
    });
    return outDir;
  })();
  return sandboxHarnessDir.then((dir) => serveStatic({ dir, isolate }));
}
