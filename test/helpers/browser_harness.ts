// Test-only pages for the browser tests, built into temporary folders (never into dist/): the UI
// harness (the real page on the fake trainer) and the harness pages of test/e2e/pages/.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from '../../scripts/browser.ts';
import { serveStatic } from '../../scripts/serve.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Builds the UI test harness (test/ui/harness: the real page on the fake trainer) into a
 * temporary folder and serves it with isolation headers. The harness never goes into dist/.
 */
export async function serveHarness(): Promise<{ url: string; close: () => Promise<void> }> {
  const { build } = await import('vite');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const root = join(repo, 'test', 'ui', 'harness');
  const outDir = mkdtempSync(join(tmpdir(), 'ui-harness-'));
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    base: './',
    build: { outDir, emptyOutDir: true, target: 'es2022' },
  });
  const server = await serveStatic({ dir: outDir, isolate: true });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/**
 * Builds the harness pages of test/e2e/pages/ (sandbox.html: the real sandbox pool; webgpu.html:
 * the model on a chosen backend; webgpu_trainer.html: the trainer on a chosen backend;
 * webgpu_engine.html: the WebGPU decoding engine's kernels and census), bundled by
 * Vite with the project's config, Pyodide and the tfjs WASM binaries copied beside them and the
 * tiny fixture models and the demo model under models/, into a temporary folder, once per process.
 * The harness never goes into dist/.
 */
let pagesHarnessDir: Promise<string> | null = null;
function buildPagesHarness(): Promise<string> {
  pagesHarnessDir ??= (async () => {
    const { build } = await import('vite');
    const { cpSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const pages = join(repo, 'test', 'e2e', 'pages');
    const outDir = mkdtempSync(join(tmpdir(), 'pages-harness-'));
    process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
    await build({
      root: pages,
      configFile: join(repo, 'vite.config.ts'),
      logLevel: 'warn',
      base: './',
      build: {
        outDir,
        emptyOutDir: true,
        rollupOptions: {
          input: {
            sandbox: join(pages, 'sandbox.html'),
            webgpu: join(pages, 'webgpu.html'),
            webgpu_trainer: join(pages, 'webgpu_trainer.html'),
            webgpu_engine: join(pages, 'webgpu_engine.html'),
          },
        },
      },
    });
    for (const name of [
      'tiny-llama',
      'tiny-qwen2',
      'tiny-qwen3',
      'tiny-llama-bf16',
      'tiny-qwen2-bf16',
      'tiny-qwen3-bf16',
    ])
      cpSync(join(repo, 'test', 'fixtures', 'models', name), join(outDir, 'models', name), {
        recursive: true,
      });
    cpSync(join(repo, 'public', 'models', 'demo'), join(outDir, 'models', 'demo'), {
      recursive: true,
    });
    return outDir;
  })();
  return pagesHarnessDir;
}

/**
 * Serves the harness pages with or without COOP/COEP (`${url}sandbox.html`, `${url}webgpu.html`,
 * `${url}webgpu_trainer.html`).
 */
export function serveSandboxHarness(
  isolate: boolean,
): Promise<{ url: string; close: () => Promise<void> }> {
  return buildPagesHarness().then((dir) => serveStatic({ dir, isolate }));
}

/** The UI harness served and Chromium launched for one test file (both closed after it). */
export interface HarnessSession {
  readonly browser: Browser;
  readonly url: string;
}

/**
 * Registers the file's beforeAll/afterAll: the harness built and served, a browser launched, and
 * `shots` (the screenshots' folder) made. Read `browser` and `url` inside tests only.
 */
export function harnessSession(shots: string): HarnessSession {
  let browser: Browser | null = null;
  let server: { url: string; close: () => Promise<void> } | null = null;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    server = await serveHarness();
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('the harness browser is not launched yet');
      return browser;
    },
    get url() {
      if (!server) throw new Error('the harness is not served yet');
      return server.url;
    },
  };
}
