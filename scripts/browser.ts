// Headless Chromium for the browser tests and the page scripts: Debian's Chromium through
// playwright-core, the built page served with or without cross-origin isolation, and waits on the
// page's run controller.
import { chromium, type Browser, type Page } from 'playwright-core';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from './ensure.mjs';
import { serveStatic } from './serve.mjs';

export const distDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** Launches headless Chromium with the flags this closed network needs. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath)
    throw new Error(
      'Chromium not found: run `npm test` as root or `sudo apt-get install chromium`.',
    );
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      ...(extraArgs.includes('--enable-unsafe-webgpu') ? [] : ['--disable-gpu']),
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  });
}

/**
 * Waits until the page's run controller (window.playground) is idle: loaded, or done with its work.
 */
export async function waitForIdle(page: Page, timeout = 600_000): Promise<void> {
  await page.waitForFunction(
    () => (window as unknown as { playground?: { state: string } }).playground?.state === 'idle',
    null,
    { timeout },
  );
}

/** Waits until the toolbar's step count reads `step`. */
export async function waitForStep(page: Page, step: number, timeout = 900_000): Promise<void> {
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid=step-count]')?.textContent === String(n),
    step,
    { timeout },
  );
}

/** Serves dist/ (built by test/global-setup.ts). `isolate: false` drops COOP/COEP. */
export function servePage(isolate = true): Promise<{ url: string; close: () => Promise<void> }> {
  return serveStatic({ dir: distDir, isolate });
}

/** Chromium flags that give WebGPU a software (SwiftShader) adapter in headless mode. */
export const SOFTWARE_WEBGPU_FLAGS = [
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--enable-unsafe-swiftshader',
];
