// Every run starts in an interpreter no other run's code ran in (docs/sandbox.md, "Every run in a
// clean interpreter"). Once the worker is locked down and warm, its whole state is copied once:
// the wasm linear memory (the Python heap, the allocator, every C global) and the JavaScript-side
// state that goes with it; before each run the copy is put back. A program's changes that no audit
// can list (class attributes of the stdlib, closure cells, objects stashed where only a gc walk
// finds them) are gone with the bytes that held them. The JavaScript side restored with it:
// - Pyodide's reference table (hiwire: the JS values Python objects point at; its slot bookkeeping
//   is in linear memory, the values are not);
// - Emscripten's open-file table (a Python file object holds an fd; the stream behind it, its
//   position and flags live in JavaScript) and the working directory (FS.currentPath);
// - the stack pointer, a wasm global: the image is taken and put back only at idle, where it is at
//   its base, so it is checked rather than set.
// The file system (MEMFS, in JavaScript) has its own image, fs_image.ts. What this cannot put back
// is refused or recycled instead: a side module (.so) loaded during a run (its code and table
// entries live outside linear memory) makes `restore()` report the image unusable, and the runner
// marks the worker for replacement. This relies on internals of the pinned Pyodide (the
// `_hiwire_get`/`_hiwire_set` exports, LDSO, FS.streams); test/env/isolation.test.ts breaks
// loudly if they change.

/** The slice of Pyodide's Emscripten module this file uses (internal API of the pinned version). */
export interface ImageInternals {
  memory: WebAssembly.Memory;
  FS: { streams: Array<unknown>; currentPath: string; close(stream: unknown): void };
  LDSO?: { loadedLibsByName: Record<string, unknown> };
  __hiwire_get(index: number): unknown;
  __hiwire_set(index: number, value: unknown): number;
  stackSave?: () => number;
}

interface SavedStream {
  stream: Record<string, unknown>;
  own: Record<string, unknown>;
  shared: Record<string, unknown> | null;
}

/** Bytes past the image that a grown heap must zero each restore before the worker is recycled. */
export const MAX_GROWN_BYTES = 256 * 2 ** 20;

/** What `restore()` did, for the runner's metrics and its recycling decision. */
export interface RestoreReport {
  /** False when something could not be put back: the worker must not run another program. */
  sound: boolean;
  /** Why not, when not sound. */
  reason: string | null;
  ms: number;
}

/** A copy of a clean, idle interpreter, put back before every run. */
export class MemoryImage {
  /** The heap's length when the image was taken. */
  private readonly length: number;
  /** The non-zero pages, back to back; `runs` says where each run of them goes. */
  private readonly bytes: Uint8Array;
  /** [heap offset, length, offset in `bytes` or -1 for a run of zero pages], in heap order. */
  private readonly runs: Array<[number, number, number]>;
  private readonly hiwire: unknown[];
  private readonly streams: Array<SavedStream | null>;
  private readonly cwd: string;
  private readonly stackPointer: number | null;
  private readonly libraries: number;

  /** Takes the image: call at idle, after every PyProxy JavaScript keeps exists. */
  constructor(private readonly internals: ImageInternals) {
    const heap = new Uint8Array(internals.memory.buffer);
    this.length = heap.byteLength;
    // About half the pages of a fresh heap are zero: those are put back with a fill (no copy kept,
    // and writing zeros is cheaper than copying).
    this.runs = zeroRuns(heap);
    let kept = 0;
    for (const [, length, at] of this.runs) if (at >= 0) kept += length;
    this.bytes = new Uint8Array(kept);
    for (const [start, length, at] of this.runs)
      if (at >= 0) this.bytes.set(heap.subarray(start, start + length), at);
    this.hiwire = [...this.hiwireSlots()].map(([, value]) => value);
    this.streams = internals.FS.streams.map((stream) => {
      if (stream === null || stream === undefined) return null;
      const record = stream as Record<string, unknown>;
      const shared = record.shared as Record<string, unknown> | undefined;
      return { stream: record, own: { ...record }, shared: shared ? { ...shared } : null };
    });
    this.cwd = internals.FS.currentPath;
    this.stackPointer = internals.stackSave?.() ?? null;
    this.libraries = this.loadedLibraries();
  }

  /** Bytes the image keeps (the heap's non-zero pages when it was taken). */
  get byteLength(): number {
    return this.bytes.byteLength;
  }

  /**
   * Why the next restore could not be sound, or null: checked after each run, so a worker that
   * cannot be put back is recycled before it runs another program.
   */
  check(): string | null {
    if (this.stackPointer !== null && this.internals.stackSave?.() !== this.stackPointer)
      return 'the wasm stack is not at its idle position';
    if (this.loadedLibraries() !== this.libraries) return 'a side module was loaded during a run';
    if (this.internals.memory.buffer.byteLength - this.length > MAX_GROWN_BYTES)
      return 'the heap grew too far past the image to zero it on every run';
    return null;
  }

  /** Puts the interpreter back as it was when the image was taken. Call at idle only. */
  restore(): RestoreReport {
    const start = performance.now();
    const internals = this.internals;
    const problem = this.check();
    if (problem) return { sound: false, reason: problem, ms: performance.now() - start };
    const heap = new Uint8Array(internals.memory.buffer);
    for (const [start, length, at] of this.runs) {
      if (at < 0) heap.fill(0, start, start + length);
      else heap.set(this.bytes.subarray(at, at + length), start);
    }
    // The heap grew during some run: what lies past the image is free to the restored allocator,
    // and must read as the zeros a fresh grow gives.
    if (heap.byteLength > this.length) heap.fill(0, this.length);
    this.restoreHiwire();
    this.restoreStreams();
    internals.FS.currentPath = this.cwd;
    return { sound: true, reason: null, ms: performance.now() - start };
  }

  /** Each slot of Pyodide's reference table and its value, up to the table's end. */
  private *hiwireSlots(): Generator<[number, unknown]> {
    for (let index = 0; ; index++) {
      let value: unknown;
      try {
        value = this.internals.__hiwire_get(index);
      } catch {
        return;
      }
      yield [index, value];
    }
  }

  private loadedLibraries(): number {
    return Object.keys(this.internals.LDSO?.loadedLibsByName ?? {}).length;
  }

  /** Each slot back to its value at the image; slots added since are emptied. */
  private restoreHiwire(): void {
    const internals = this.internals;
    for (const [index, value] of this.hiwireSlots()) {
      const wanted = index < this.hiwire.length ? this.hiwire[index] : null;
      if (value !== wanted && internals.__hiwire_set(index, wanted) < 0)
        throw new Error(`could not restore Pyodide's reference table at slot ${index}`);
    }
  }

  /** Streams opened since the image are closed; those closed or moved since are put back. */
  private restoreStreams(): void {
    const streams = this.internals.FS.streams;
    for (let fd = 0; fd < streams.length; fd++) {
      const current = streams[fd];
      const saved = fd < this.streams.length ? this.streams[fd] : null;
      if (current !== null && current !== undefined && current !== saved?.stream) {
        try {
          this.internals.FS.close(current);
        } catch {
          /* already closed underneath */
        }
        streams[fd] = null;
      }
    }
    for (let fd = 0; fd < this.streams.length; fd++) {
      const saved = this.streams[fd];
      if (!saved) continue;
      streams[fd] = saved.stream;
      Object.assign(saved.stream, saved.own);
      const shared = saved.stream.shared as Record<string, unknown> | undefined;
      if (shared && saved.shared) Object.assign(shared, saved.shared);
    }
  }
}

/** Runs of whole 64 KiB pages, each all zero (offset -1) or not (its offset among the kept bytes). */
function zeroRuns(heap: Uint8Array): Array<[number, number, number]> {
  const PAGE = 65536;
  const words = new Uint32Array(heap.buffer, 0, heap.byteLength >>> 2);
  const runs: Array<[number, number, number]> = [];
  let kept = 0;
  for (let start = 0; start < heap.byteLength; start += PAGE) {
    const end = Math.min(start + PAGE, heap.byteLength);
    let zero = true;
    for (let word = start >>> 2; word < end >>> 2; word++) {
      if (words[word] !== 0) {
        zero = false;
        break;
      }
    }
    for (let tail = end & ~3; zero && tail < end; tail++) if (heap[tail] !== 0) zero = false;
    const last = runs.at(-1);
    if (last && last[2] < 0 === zero) last[1] += end - start;
    else runs.push([start, end - start, zero ? -1 : kept]);
    if (!zero) kept += end - start;
  }
  return runs;
}

/**
 * When the image is put back around a runner's runs: before a run if a program ran since the last
 * restore, else just after a run once its reply has gone. One per runner (runner.ts).
 */
export class CleanRuns {
  /** Whether a program has run since the image was last put back. */
  private dirty = false;
  /** What the last restore took (ms), for the bench. */
  lastRestoreMs = 0;

  constructor(readonly image: MemoryImage) {}

  /**
   * Puts the clean interpreter back before a run, so no earlier program's changes reach this
   * one. Returns an Error when that cannot be done: the worker is then dead (the pool replaces it)
   * and the program never runs.
   */
  begin(): Error | null {
    if (this.dirty) {
      let report: RestoreReport;
      try {
        report = this.image.restore();
      } catch (error) {
        report = { sound: false, reason: String(error), ms: 0 };
      }
      this.lastRestoreMs = report.ms;
      if (!report.sound)
        return new Error(
          `the interpreter could not be restored to its clean image: ${report.reason}`,
        );
    }
    // From here until the restore the interpreter is not clean.
    this.dirty = true;
    return null;
  }

  /**
   * After a run: the restore is done once the reply has gone (a timer runs after comlink posts
   * it), so a caller that is not waiting on this worker does not wait for it; a run that arrives
   * first does it itself (begin). A restore that cannot be done is left to begin, which reports
   * it. `dead` says whether the worker ended meanwhile.
   */
  end(dead: () => boolean): void {
    setTimeout(() => {
      if (!this.dirty || dead() || this.image.check() !== null) return;
      try {
        this.lastRestoreMs = this.image.restore().ms;
        this.dirty = false;
      } catch {
        // Left dirty: the next run's begin tries again and ends the worker if it fails.
      }
    }, 0);
  }
}
