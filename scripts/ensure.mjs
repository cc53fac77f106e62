#!/usr/bin/env node
// Makes a fresh clone runnable: installs npm packages when they are missing or stale, and
// (with --browser) Debian's Chromium for the browser tests. Plain Node, no dependencies,
// because it runs before anything is installed.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');
const log = (message) => {
  if (!quiet) console.error(`[ensure] ${message}`);
};

function packagesStale() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return 'node_modules is missing';
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const wanted = { ...pkg.dependencies, ...pkg.devDependencies };
  for (const name of Object.keys(wanted)) {
    if (!existsSync(join(root, 'node_modules', name, 'package.json')))
      return `${name} is not installed`;
  }
  const lock = join(root, 'package-lock.json');
  if (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000)
    return 'package-lock.json changed';
  return null;
}

const reason = packagesStale();
if (reason) {
  log(`${reason}: running npm install`);
  // `npm install` (it follows package-lock.json): npm 11's `npm ci` refuses this lock file because
  // of vite's Windows-only optional dependency, which npm never records for Linux.
  const command = 'npm install --no-audit --no-fund';
  execSync(command, {
    cwd: root,
    stdio: ['ignore', quiet ? 'ignore' : process.stderr, process.stderr],
  });
}

/** Where a Chromium binary is, or null. CHROMIUM_PATH overrides. */
export function findChromium() {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  return candidates.find((path) => path && existsSync(path)) ?? null;
}

if (args.has('--browser') && !findChromium()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) {
    log("Chromium is missing: installing Debian's chromium package (apt-get)");
    execSync(
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium',
      { stdio: ['ignore', process.stderr, process.stderr] },
    );
  } else {
    console.error(
      '[ensure] The browser tests need Chromium. Install it with:\n  sudo apt-get install chromium\nor set CHROMIUM_PATH to a Chromium or Chrome binary, then run npm test again.',
    );
    process.exit(1);
  }
}
