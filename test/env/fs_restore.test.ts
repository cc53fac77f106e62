// The file system put back after every run (fs_image.ts, issue 63): on one worker (a pool of size
// 1, no recycling), each saboteur of fs_saboteurs.ts runs three times in a row; then a stat of the
// whole tree must match the worker's first program's exactly, modules no run has loaded must
// import, and the worker must be the same one (no crash, no replacement hid anything). Without the
// memory image (isolate: false) the same holds but for the descriptors a saboteur left open, which
// only the image closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSandboxPool } from '../../src/env/node_pool.ts';
import type { SandboxPool } from '../../src/env/pool.ts';
import { hiddenTests } from '../../src/tasks/tests_harness.ts';
import {
  FS_SABOTEURS,
  IMPORTER,
  LISTING,
  OWN_EXTREME_TIMES,
  parseListing,
  SPACE,
} from './fs_saboteurs.ts';

const RUNS = 3;

describe('every run starts from the file system the lockdown left (one worker)', () => {
  let pool: SandboxPool;
  let fresh: { listing: unknown; rest: string };

  const sameWorker = () => {
    const { respawns, recycles, terminations, crashes } = pool.metrics();
    return { respawns, recycles, terminations, crashes };
  };

  beforeAll(async () => {
    pool = await createNodeSandboxPool({
      size: 1,
      spares: 0,
      recycleEvery: 0,
      maxOutputChars: 200_000,
      maxCaptureChars: 200_000,
    });
    const first = await pool.execute(LISTING);
    expect(first.ok).toBe(true);
    fresh = parseListing(first.observation);
    // The listing covers the whole tree, /proc and /dev included, and can tell their states apart.
    const tree = (fresh.listing as { tree: Record<string, unknown> }).tree;
    for (const path of ['/proc/self/fd', '/dev/tty', '/lib/python314.zip', '/tmp', '/home/pyodide'])
      expect(tree).toHaveProperty([path]);
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  for (const saboteur of FS_SABOTEURS) {
    it(`${saboteur.name}: the next program sees a fresh worker's file system`, async () => {
      const before = sameWorker();
      for (let i = 0; i < RUNS; i++) {
        const run = await pool.execute(saboteur.code);
        expect(run.terminated).toBe(false);
        if (saboteur.output !== undefined) expect(run.observation).toBe(saboteur.output);
      }
      const after = await pool.execute(LISTING);
      expect(after.ok).toBe(true);
      expect(parseListing(after.observation)).toEqual(fresh);
      const imported = await pool.execute(IMPORTER.code);
      expect(imported.observation).toBe(IMPORTER.output);
      expect(sameWorker()).toEqual(before);
    }, 60_000);
  }

  it('space does not grow: 40 MB written under /proc in three episodes in a row is 40 MB each time', async () => {
    const before = sameWorker();
    for (let i = 0; i < RUNS; i++) {
      const run = await pool.execute(SPACE);
      expect(run.observation).toBe('40\n');
    }
    // The quota still holds within one run.
    const over = await pool.execute("open('/proc/big', 'wb').write(b'x' * (70 * 2**20))");
    expect(over.observation).toMatch(/OSError: \[Errno \d+\] No space left on device\n$/);
    expect(parseListing((await pool.execute(LISTING)).observation)).toEqual(fresh);
    expect(sameWorker()).toEqual(before);
  }, 60_000);

  it("a program's own extreme times are refused, and its stats and imports go on", async () => {
    const before = sameWorker();
    const run = await pool.execute(OWN_EXTREME_TIMES.code);
    expect(run.observation).toBe(OWN_EXTREME_TIMES.output);
    expect(run.ok).toBe(true);
    expect((await pool.execute(IMPORTER.code)).observation).toBe(IMPORTER.output);
    expect(parseListing((await pool.execute(LISTING)).observation)).toEqual(fresh);
    expect(sameWorker()).toEqual(before);
  }, 60_000);

  it('the judge puts the file system back too', async () => {
    const before = sameWorker();
    for (const saboteur of FS_SABOTEURS)
      await pool.judge(
        `${saboteur.code}\ndef add(a, b):\n    return a + b\n`,
        hiddenTests(['assert add(1, 2) == 3']),
      );
    expect(parseListing((await pool.execute(LISTING)).observation)).toEqual(fresh);
    expect(sameWorker()).toEqual(before);
  }, 60_000);
});

/** LISTING without what depends on open descriptors (left open where no memory image closes them). */
function withoutDescriptors(parsed: { listing: unknown; rest: string }) {
  const listing = structuredClone(parsed.listing) as {
    tree: Record<string, { names?: unknown }>;
    probe: { fd?: number; pipe?: unknown[] };
  } | null;
  if (!listing) return parsed;
  for (const path of Object.keys(listing.tree))
    if (path.startsWith('/proc/self/fd/')) delete listing.tree[path];
  delete listing.tree['/proc/self/fd']?.names;
  delete listing.probe.fd;
  listing.probe.pipe = listing.probe.pipe?.slice(2);
  return { listing, rest: parsed.rest };
}

describe('the file system is put back without the memory image too (isolate: false)', () => {
  let pool: SandboxPool;
  let fresh: ReturnType<typeof withoutDescriptors>;

  beforeAll(async () => {
    pool = await createNodeSandboxPool({
      size: 1,
      spares: 0,
      recycleEvery: 0,
      isolate: false,
      maxOutputChars: 200_000,
      maxCaptureChars: 200_000,
    });
    fresh = withoutDescriptors(parseListing((await pool.execute(LISTING)).observation));
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
  });

  it('every saboteur in turn, then the same tree, terminals and counters as the first program saw', async () => {
    const { respawns, recycles } = pool.metrics();
    for (const saboteur of FS_SABOTEURS) {
      const run = await pool.execute(saboteur.code);
      expect(run.terminated).toBe(false);
      const after = withoutDescriptors(parseListing((await pool.execute(LISTING)).observation));
      expect({ saboteur: saboteur.name, ...after }).toEqual({ saboteur: saboteur.name, ...fresh });
    }
    expect((await pool.execute(IMPORTER.code)).observation).toBe(IMPORTER.output);
    expect(pool.metrics()).toMatchObject({ respawns, recycles });
  }, 60_000);
});
