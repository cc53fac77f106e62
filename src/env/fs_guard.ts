// Keeps programs from leaving files behind or damaging the interpreter's own files. Works on
// Emscripten's in-memory file system (MEMFS) from the JavaScript side, where a program cannot undo
// it: every node present after the lockdown (the stdlib zip, /lib, /home, /tmp, /dev) is read-only
// and cannot be removed, renamed over or have its mode changed; files a program creates count against a quota and are
// deleted after each run. This relies on MEMFS internals of the pinned Pyodide version; the tests
// in test/env/ break loudly if they change.

/** A MEMFS node, as far as this file uses it. */
export interface FsNode {
  name: string;
  mode: number;
  contents?: unknown;
  usedBytes?: number;
  mounted?: { root: FsNode } | null;
}

/** Directory and file operation tables MEMFS shares between all its nodes. */
interface MemfsOpsTable {
  dir: { node: Record<string, (...args: never[]) => unknown> };
  file: {
    node: Record<string, (...args: never[]) => unknown>;
    stream: Record<string, (...args: never[]) => unknown>;
  };
}

/** The slice of Emscripten's FS and MEMFS objects used here (internal API of the pinned Pyodide). */
export interface EmscriptenFs {
  root: FsNode;
  streams: Array<unknown>;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
  unlink(path: string): void;
  rmdir(path: string): void;
  ErrnoError: new (errno: number) => Error;
}

/** MEMFS as Emscripten exports it. */
export interface EmscriptenMemfs {
  ops_table: MemfsOpsTable | null;
}

interface WriteStream {
  node: FsNode;
}

/** Read-only baseline plus cleanup of whatever a program created. */
export class FileSystemGuard {
  private readonly baseline = new Set<FsNode>();
  private userBytes = 0;
  private baselineStreams = 0;

  constructor(
    private readonly fs: EmscriptenFs,
    private readonly memfs: EmscriptenMemfs,
    private readonly errno: { readOnly: number; noSpace: number },
    private readonly quotaBytes: number,
  ) {}

  /** Records the current tree as the baseline and guards it. Call once, after the lockdown. */
  protect(): void {
    const table = this.memfs.ops_table;
    if (!table) throw new Error('MEMFS has no ops table: the Pyodide file system layout changed');
    this.walk((node) => {
      this.baseline.add(node);
      return true;
    });
    this.baselineStreams = this.openStreams();
    const isBaseline = (node: FsNode | undefined): boolean =>
      node !== undefined && this.baseline.has(node);
    const childOf = (parent: FsNode, name: string): FsNode | undefined =>
      (parent.contents as Record<string, FsNode> | undefined)?.[name];
    const readOnly = (): never => {
      throw new this.fs.ErrnoError(this.errno.readOnly);
    };

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
    // A baseline node's mode cannot change: MEMFS keeps it in JavaScript, where the memory image
    // (memory_image.ts) does not reach, so `chmod` on the stdlib's zip would break later episodes'
    // imports.
    for (const kind of Object.values(table) as Array<{ node?: Record<string, unknown> }>) {
      const nodeOps = kind.node as Record<string, (...args: unknown[]) => unknown> | undefined;
      const inner = nodeOps?.setattr;
      if (!nodeOps || !inner) continue;
      nodeOps.setattr = (node, attr) => {
        if ((attr as { mode?: number }).mode !== undefined && isBaseline(node as FsNode))
          readOnly();
        return inner(node, attr);
      };
    }
    const fileStreamOps = table.file.stream as Record<string, (...args: unknown[]) => unknown>;
    const write = fileStreamOps.write!;
    fileStreamOps.write = (stream, buffer, offset, length, position, canOwn) => {
      const node = (stream as WriteStream).node;
      if (isBaseline(node)) readOnly();
      this.charge((position as number) + (length as number) - (node.usedBytes ?? 0));
      return write(stream, buffer, offset, length, position, canOwn);
    };
  }

  /** Deletes every node a program created; returns how many top-level entries went. */
  cleanup(): number {
    const doomed: string[] = [];
    this.walk((node, path) => {
      if (this.baseline.has(node)) return true;
      doomed.push(path);
      return false;
    });
    for (const path of doomed) this.remove(path);
    this.userBytes = 0;
    return doomed.length;
  }

  /** Open file descriptors beyond those open at the baseline (a leak taints the worker). */
  leakedStreams(): number {
    return this.openStreams() - this.baselineStreams;
  }

  private openStreams(): number {
    return this.fs.streams.filter((stream) => stream !== null && stream !== undefined).length;
  }

  private charge(growthBytes: number): void {
    if (growthBytes <= 0) return;
    if (this.userBytes + growthBytes > this.quotaBytes)
      throw new this.fs.ErrnoError(this.errno.noSpace);
    this.userBytes += growthBytes;
  }

  /** Depth-first over the tree (skipping /proc); `visit` returns false to skip a node's children. */
  private walk(visit: (node: FsNode, path: string) => boolean): void {
    const stack: Array<[FsNode, string]> = [[this.fs.root, '']];
    while (stack.length > 0) {
      const [node, path] = stack.pop()!;
      const dir = node.mounted ? node.mounted.root : node;
      if (!this.fs.isDir(dir.mode) || path === '/proc') continue;
      for (const [name, child] of Object.entries((dir.contents ?? {}) as Record<string, FsNode>)) {
        const childPath = `${path}/${name}`;
        if (visit(child, childPath)) stack.push([child, childPath]);
      }
    }
  }

  private remove(path: string): void {
    try {
      this.fs.unlink(path);
      return;
    } catch {
      // A directory: empty it first.
    }
    const children: string[] = [];
    this.walkFrom(path, children);
    for (const child of children.reverse()) {
      try {
        this.fs.unlink(child);
      } catch {
        try {
          this.fs.rmdir(child);
        } catch {
          /* already gone */
        }
      }
    }
    try {
      this.fs.rmdir(path);
    } catch {
      /* a mount point or already gone */
    }
  }

  private walkFrom(path: string, out: string[]): void {
    const stack: Array<[FsNode, string]> = [];
    let node: FsNode | undefined = this.fs.root;
    for (const part of path.split('/').filter(Boolean)) {
      node = (
        (node?.mounted ? node.mounted.root : node)?.contents as Record<string, FsNode> | undefined
      )?.[part];
    }
    if (node) stack.push([node, path]);
    while (stack.length > 0) {
      const [current, currentPath] = stack.pop()!;
      if (!this.fs.isDir(current.mode)) continue;
      for (const [name, child] of Object.entries(
        (current.contents ?? {}) as Record<string, FsNode>,
      )) {
        out.push(`${currentPath}/${name}`);
        stack.push([child, `${currentPath}/${name}`]);
      }
    }
  }
}
