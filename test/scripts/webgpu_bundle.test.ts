// The WebGPU bench as a folder that runs with nothing installed (scripts/webgpu-bundle.mjs), as a
// lent GPU machine gets it: built by `npm run bench:webgpu -- --bundle DIR`, copied to a folder
// outside the checkout, and run there with a PATH that holds only the tools run.sh names (so the
// system's Node cannot stand in for the bundle's, and no node_modules is in reach), on SwiftShader
// (Chromium's software Vulkan driver) through the bundle's own Vulkan loader. Its counts are the
// decoding engine's (docs/kernels.md): 5 GPU programs a layer and 6 a token besides, 1 submit and
// 8 bytes read back a token, nothing made after warm-up. The tiny-qwen shape keeps the run short:
// the counts are per layer and per token, the same at any width (the 0.5B's are minutes here).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const swiftshader = '/usr/lib/chromium/vk_swiftshader_icd.json';
const outside = mkdtempSync(join(tmpdir(), 'webgpu-bundle-test-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** The folder holding `tool` on this PATH, or null. */
function which(tool: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, tool);
    if (dir && existsSync(path)) return realpathSync(path);
  }
  return null;
}

/** A folder of links to run.sh's tools, and no others: no node, no npm. */
function toolsOnly(): string {
  const bin = join(outside, 'bin');
  mkdirSync(bin);
  const needed = ['sh', 'dirname', 'mktemp', 'rm', 'tar', 'chmod', 'mkdir', 'date'];
  // xz and dpkg-deb, or Python, which run.sh uses where they are missing
  const unpackers = which('xz') && which('dpkg-deb') ? ['xz', 'dpkg-deb'] : ['python3'];
  for (const tool of [...needed, ...unpackers]) {
    const path = which(tool);
    if (!path) throw new Error(`run.sh needs ${tool}, which is not on the PATH`);
    symlinkSync(path, join(bin, tool));
  }
  return bin;
}

describe('the WebGPU bench bundle', () => {
  it("runs from a folder outside the checkout with nothing installed, and gives the engine's counts on SwiftShader", () => {
    if (!existsSync(swiftshader))
      throw new Error(
        `this test needs Chromium's SwiftShader (${swiftshader}): npm test installs Debian's chromium`,
      );
    const built = join(root, 'runs', 'webgpu-bundle');
    const summary = JSON.parse(
      execFileSync(process.execPath, ['scripts/webgpu-bench.mjs', '--bundle', built], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      })
        .toString()
        .trim()
        .split('\n')
        .pop()!,
    ) as { bytes: number; debs: string[]; node: string };
    console.log(`bundle: ${JSON.stringify(summary)}`);
    expect(summary.bytes).toBeLessThanOrEqual(60 * 2 ** 20);
    expect(summary.debs.some((deb) => deb.startsWith('libvulkan1_'))).toBe(true);
    expect(summary.node).toBe(process.version);

    const copy = join(outside, 'bundle');
    cpSync(built, copy, { recursive: true });
    for (let dir = copy; dir !== dirname(dir); dir = dirname(dir))
      expect(existsSync(join(dir, 'node_modules')), `node_modules in ${dir}`).toBe(false);
    const started = performance.now();
    const result = spawnSync(join(copy, 'run.sh'), ['--counts', '--shape', 'tiny-qwen'], {
      cwd: outside,
      env: { PATH: toolsOnly(), HOME: outside, TMPDIR: outside, VK_ICD_FILENAMES: swiftshader },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 24,
    });
    const stderr = result.stderr.toString();
    console.log(
      `run.sh --counts: ${((performance.now() - started) / 1000).toFixed(1)} s\n${stderr}`,
    );
    expect(result.status, stderr).toBe(0);
    const counts = JSON.parse(result.stdout.toString().trim().split('\n').pop()!) as Record<
      string,
      number
    >;
    expect(counts).toMatchObject({
      webgpu_dispatches_per_layer: 5,
      webgpu_dispatches_per_token_fixed: 6,
      webgpu_submits_per_token: 1,
      webgpu_readback_bytes_per_token: 8,
      webgpu_objects_created_after_warmup: 0,
    });
    // run.sh's temporary folder (Node, Dawn, the shape models) is gone
    expect(readdirSync(outside).sort()).toEqual(['bin', 'bundle']);
  }, 900_000);
});
