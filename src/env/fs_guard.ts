// Keeps programs from damaging the file system within a run and from leaving anything in it for the
// next. Works on Emscripten's in-memory file system (MEMFS) from the JavaScript side, where a
// program cannot undo it: every node present after the lockdown (the stdlib zip, /lib, /home, /tmp,
// /dev, /proc) is read-only and cannot be removed, renamed over or have its mode changed; files a
// program creates count against a quota; no node takes a time JavaScript's Date cannot hold; and
// after each run the whole file system is put back as the lockdown left it (fs_image.ts). This
// relies on MEMFS internals of the pinned Pyodide version; the tests in test/env/ break loudly if
// they change.
import { FileSystemImage, type FsNode, type FsState, type FsTree } from './fs_image.ts';

/** Directory and file operation tables MEMFS shares between all its nodes. */
interface MemfsOpsTable {
  dir: { node: Record<string, (...args: never[]) => unknown> };
  file: {
    node: Record<string, (...args: never[]) => unknown>;
    stream: Record<string, (...args: never[]) => unknown>;
  };
}

/** The slice of Emscripten's FS object used here (internal API of the pinned Pyodide). */
export interface EmscriptenFs extends FsTree {
  streams: Array<unknown>;
  ErrnoError: new (errno: number) => Error;
}

/** MEMFS as Emscripten exports it. */
export interface EmscriptenMemfs {
  ops_table: MemfsOpsTable | null;
}

/** What the guard works on: the file system, MEMFS's operations, the rest of FsState. */
export type GuardedFs = Omit<FsState, 'FS'> & { FS: EmscriptenFs; MEMFS: EmscriptenMemfs };

interface WriteStream {
  node: FsNode;
}

/**
 * JavaScript's Date holds ±8.64e15 ms. A node time past it makes every later stat of the node throw
 * a RangeError inside Emscripten (an Invalid Date has no time to convert), which kills Pyodide: the
 * run's own program, or the next one that imports a module (an import stats sys.path's folders).
 */
const MAX_TIME_MS = 8.64e15;

const TIME_KEYS = ['atime', 'mtime', 'ctime'] as const;

/** Read-only baseline, quota, and the file system put back after each run. */
export class FileSystemGuard {
  private image: FileSystemImage | null = null;
  private userBytes = 0;
  private baselineStreams = 0;
  /** What the last restore took (ms), for the bench. */
  lastRestoreMs = 0;

  constructor(
    private readonly emscripten: GuardedFs,
    private readonly errno: { readOnly: number; noSpace: number; invalid: number },
    private readonly quotaBytes: number,
  ) {}

  /** Records the current tree as the baseline and guards it. Call once, after the lockdown. */
  protect(): void {
    const table = this.emscripten.MEMFS.ops_table;
    if (!table) throw new Error('MEMFS has no ops table: the Pyodide file system layout changed');
    const image = new FileSystemImage(this.emscripten);
    this.image = image;
    this.baselineStreams = this.openStreams();
    const fs = this.emscripten.FS;
    const isBaseline = (node: FsNode | undefined): boolean =>
      node !== undefined && image.nodes.has(node);
    const childOf = (parent: FsNode, name: string): FsNode | undefined =>
      (parent.contents as Record<string, FsNode> | undefined)?.[name];
    const refuse = (errno: number): never => {
      throw new fs.ErrnoError(errno);
    };
    const readOnly = (): never => refuse(this.errno.readOnly);

    const dirOps = table.dir.node as Record<string, (...args: unknown[]) => unknown>;
    const { unlink, rmdir, rename } = dirOps;
    dirOps.unlink = (parent, name) =>
      isBaseline(childOf(parent as FsNode, name as string)) ? readOnly() : unlink!(parent, name);
    dirOps.rmdir = (parent, name) =>
      isBaseline(childOf(parent as FsNode, name as string)) ? readOnly() : rmdir!(parent, name);
    dirOps.rename = (oldNode, newDir, newName) =>
      isBaseline(oldNode as FsNode) || isBaseline(childOf(newDir as FsNode, newName as string))
        ? readOnly()
        : rename!(oldNode, newDir, newName);

    const fileNodeOps = table.file.node as Record<string, (...args: unknown[]) => unknown>;
    const setattr = fileNodeOps.setattr!;
    fileNodeOps.setattr = (node, attr) => {
      const size = (attr as { size?: number }).size;
      if (size !== undefined) {
        if (isBaseline(node as FsNode)) readOnly();
        this.charge(size - ((node as FsNode).usedBytes ?? 0));
      }
      return setattr(node, attr);
    };
    // A baseline node's mode cannot change (chmod on the stdlib's zip would break the run's own
    // imports), and no node takes a time Date cannot hold: refused at the source, so neither this
    // run nor, should the restore ever miss it, a later one can stat its way into a RangeError.
    for (const kind of Object.values(table) as Array<{ node?: Record<string, unknown> }>) {
      const nodeOps = kind.node as Record<string, (...args: unknown[]) => unknown> | undefined;
      const inner = nodeOps?.setattr;
      if (!nodeOps || !inner) continue;
      nodeOps.setattr = (node, attr) => {
        const change = attr as Partial<Record<'mode' | (typeof TIME_KEYS)[number], unknown>>;
        if (change.mode !== undefined && isBaseline(node as FsNode)) readOnly();
        for (const key of TIME_KEYS) {
          const time = change[key];
          if (time === null || time === undefined) continue;
          const ms = Number(time);
          if (!Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS) refuse(this.errno.invalid);
        }
        return inner(node, attr);
      };
    }
    const fileStreamOps = table.file.stream as Record<string, (...args: unknown[]) => unknown>;
    const write = fileStreamOps.write!;
    const guardedWrite = (...args: unknown[]): unknown => {
      const [stream, buffer, offset, length, position, canOwn] = args;
      const node = (stream as WriteStream).node;
      if (isBaseline(node)) readOnly();
      this.charge((position as number) + (length as number) - (node.usedBytes ?? 0));
      return write(stream, buffer, offset, length, position, canOwn);
    };
    fileStreamOps.write = guardedWrite;
    // A shared writable mapping is written back on munmap or msync through MEMFS's own write, not
    // the table's: without this, mmap would write into the stdlib's zip and past the quota.
    fileStreamOps.msync = (stream, buffer, offset, length) => {
      guardedWrite(stream, buffer, 0, length, offset, false);
      return 0;
    };
  }

  /**
   * Puts the file system back as the lockdown left it (fs_image.ts) and resets the quota; returns
   * how many entries a program had added to the baseline's folders.
   */
  cleanup(): number {
    const start = performance.now();
    const removed = this.image?.restore() ?? 0;
    this.userBytes = 0;
    this.lastRestoreMs = performance.now() - start;
    return removed;
  }

  /** Open file descriptors beyond those open at the baseline (a leak taints the worker). */
  leakedStreams(): number {
    return this.openStreams() - this.baselineStreams;
  }

  private openStreams(): number {
    return this.emscripten.FS.streams.filter((stream) => stream !== null && stream !== undefined)
      .length;
  }

  private charge(growthBytes: number): void {
    if (growthBytes <= 0) return;
    if (this.userBytes + growthBytes > this.quotaBytes)
      throw new this.emscripten.FS.ErrnoError(this.errno.noSpace);
    this.userBytes += growthBytes;
  }
}
