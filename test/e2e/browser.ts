// Shared helpers for browser tests: Debian's Chromium through playwright-core, and the built page
// served with or without cross-origin isolation.
import { chromium, type Browser, type Page } from 'playwright-core';
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
      '--no-sandbox', ...(extraArgs.includes('--enable-unsafe-webgpu') ? [] : ['--disable-gpu']), '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...extraArgs,
    ],
  });
}

/** Waits until the page's run controller (window.playground) is idle: loaded, or done with its work. */
export async function waitForIdle(page: Page, timeout = 600_000): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { playground?: { state: string } }).playground?.state === 'idle', null, { timeout });
}

/** Waits until the toolbar's step count reads `step`. */
export async function waitForStep(page: Page, step: number, timeout = 900_000): Promise<void> {
  await page.waitForFunction((n) => document.querySelector('[data-testid=step-count]')?.textContent === String(n), step, { timeout });
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
 * Builds the harness pages of test/e2e/pages/ (sandbox.html: the real sandbox pool; webgpu.html:
 * the model on a chosen backend), bundled by Vite with the project's config, Pyodide and the tfjs
 * WASM binaries copied beside them and the tiny fixture models under models/, into a temporary
 * folder, once per process. The harness never goes into dist/.
 */
let pagesHarnessDir: Promise<string> | null = null;
function buildPagesHarness(): Promise<string> {
  pagesHarnessDir ??= (async () => {
    const { build } = await import('vite');
    const { cpSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const pages = join(repo, 'test', 'e2e', 'pages');
    const outDir = mkdtempSync(join(tmpdir(), 'pages-harness-'));
    process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
    await build({
      root: pages,
      configFile: join(repo, 'vite.config.ts'),
      logLevel: 'warn',
      base: './',
      build: { outDir, emptyOutDir: true, rollupOptions: { input: { sandbox: join(pages, 'sandbox.html'), webgpu: join(pages, 'webgpu.html') } } },
    });
    for (const name of ['tiny-llama', 'tiny-qwen2', 'tiny-qwen3']) cpSync(join(repo, 'test', 'fixtures', 'models', name), join(outDir, 'models', name), { recursive: true });
    return outDir;
  })();
  return pagesHarnessDir;
}

/** Serves the harness pages with or without COOP/COEP (`${url}sandbox.html`, `${url}webgpu.html`). */
export function serveSandboxHarness(isolate: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  return buildPagesHarness().then((dir) => serveStatic({ dir, isolate }));
}

/** Chromium flags that give WebGPU a software (SwiftShader) adapter in headless mode. */
export const SOFTWARE_WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];
