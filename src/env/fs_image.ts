// The file system as the lockdown left it, put back after every run (docs/sandbox.md, "Every run in
// a clean interpreter"). Emscripten's file system lives in JavaScript, where the memory image
// (memory_image.ts) does not reach: MEMFS nodes (names, parents, contents, modes, times), the name
// table that path lookups go through, the inode counter (st_ino, statvfs), the terminals' line
// buffers (bytes written to /dev/tty without a newline reach whoever writes the next one) and the
// pipe and socket name counters (readlink of /proc/self/fd/N). Left alone, a file written under
// /proc, a rename, or a time set on the stdlib's zip reached every later episode.
//
// The image records every node reachable from the root, /proc and /dev included, with the root of
// the /proc/self/fd mount (whose entries are made up from the open-file table on each lookup, so
// there is nothing below it to record). Putting it back is a sweep over those few dozen nodes, not
// a diff of what a program did: each directory gets its recorded entries in their recorded order
// (whatever a program created is dropped with the entry that held it, however deep), each node its
// parent, name, mode, times, contents and link target; the name table gets its recorded chains, so
// lookups find exactly the recorded nodes; the counters get their recorded values. A baseline file's
// contents are put back by reference: fs_guard.ts refuses every write to them (a program cannot
// change the bytes in place), so the reference is the content. Open streams are the memory image's.
// This relies on MEMFS internals of the pinned Pyodide; test/env/fs_restore.test.ts breaks loudly
// if they change.

/** A node of Emscripten's file system (MEMFS and the /proc/self/fd mount), as used here. */
export interface FsNode {
  name: string;
  mode: number;
  parent: FsNode;
  atime: number;
  mtime: number;
  ctime: number;
  contents?: unknown;
  usedBytes?: number;
  link?: string;
  mounted?: { root: FsNode } | null;
  /** The next node in its name-table chain (FS.hashAddNode). */
  name_next?: FsNode | undefined;
}

/** A terminal's line buffers (TTY.ttys[dev]). */
interface Terminal {
  input: number[];
  output: number[];
}

/** A pseudo file system's name counter (`pipe[N]`, `socket[N]`). */
interface NameCounter {
  nextname: { current?: number };
}

/** The slice of Emscripten's FS object this file reads and puts back. */
export interface FsTree {
  root: FsNode;
  /** Path lookups' hash table: (parent id, name) -> chain of nodes through `name_next`. */
  nameTable: Array<FsNode | undefined>;
  nextInode: number;
  isDir(mode: number): boolean;
}

/** The slice of Emscripten's JavaScript-side file-system state this file reads and puts back. */
export interface FsState {
  FS: FsTree;
  TTY: { ttys: Array<Terminal | undefined> };
  PIPEFS: NameCounter;
  SOCKFS: NameCounter;
}

/** One node as recorded. */
interface NodeRecord {
  node: FsNode;
  parent: FsNode;
  name: string;
  mode: number;
  atime: number;
  mtime: number;
  ctime: number;
  /** A file's bytes (a reference), else undefined; a directory's are `entries`. */
  contents: unknown;
  usedBytes: number | undefined;
  link: string | undefined;
  mounted: FsNode['mounted'];
  /** A directory's entries in readdir order, or null. */
  entries: Array<[string, FsNode]> | null;
}

/** The whole file system at one moment, and what puts it back. */
export class FileSystemImage {
  /** Every recorded node, parents before children. */
  private readonly records: NodeRecord[] = [];
  /** The recorded nodes: what fs_guard.ts treats as read-only. */
  readonly nodes = new Set<FsNode>();
  /** The name table's chain heads, and each chained node's successor. */
  private readonly heads: Array<FsNode | undefined>;
  private readonly chained: Array<[FsNode, FsNode | undefined]> = [];
  private readonly nextInode: number;
  private readonly terminals: Array<[Terminal, number[], number[]]> = [];
  private readonly pipeNames: number | undefined;
  private readonly socketNames: number | undefined;

  /** Records the file system now: call at idle, once the lockdown is done. */
  constructor(private readonly state: FsState) {
    const fs = state.FS;
    const stack: FsNode[] = [fs.root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (this.nodes.has(node)) continue;
      this.nodes.add(node);
      const directory =
        fs.isDir(node.mode) && node.contents !== null && typeof node.contents === 'object';
      const entries = directory ? Object.entries(node.contents as Record<string, FsNode>) : null;
      this.records.push({
        node,
        parent: node.parent,
        name: node.name,
        mode: node.mode,
        atime: node.atime,
        mtime: node.mtime,
        ctime: node.ctime,
        contents: directory ? undefined : node.contents,
        usedBytes: node.usedBytes,
        link: node.link,
        mounted: node.mounted,
        entries,
      });
      // A mount point's own (hidden) entries and the mounted root both count.
      if (node.mounted) stack.push(node.mounted.root);
      for (const [, child] of entries ?? []) stack.push(child);
    }
    this.heads = Array.from(fs.nameTable);
    for (const head of this.heads)
      for (let node = head; node; node = node.name_next) this.chained.push([node, node.name_next]);
    this.nextInode = fs.nextInode;
    for (const terminal of state.TTY.ttys)
      if (terminal) this.terminals.push([terminal, [...terminal.input], [...terminal.output]]);
    this.pipeNames = state.PIPEFS.nextname.current;
    this.socketNames = state.SOCKFS.nextname.current;
  }

  /**
   * Puts the file system back as recorded; returns how many entries a program had added to the
   * recorded directories (each with whatever it held), for the run's report.
   */
  restore(): number {
    let removed = 0;
    for (const record of this.records) {
      const node = record.node;
      if (record.entries) removed += restoreEntries(node, record.entries);
      else if (node.contents !== record.contents) node.contents = record.contents;
      node.parent = record.parent;
      node.name = record.name;
      node.mode = record.mode;
      node.atime = record.atime;
      node.mtime = record.mtime;
      node.ctime = record.ctime;
      if (node.usedBytes !== record.usedBytes) node.usedBytes = record.usedBytes;
      if (node.link !== record.link) node.link = record.link;
      if (node.mounted !== record.mounted) node.mounted = record.mounted;
    }
    // The chains as recorded: nodes created since (files, folders, pipes) drop out, and a recorded
    // node is found under its recorded parent and name only.
    const table = this.state.FS.nameTable;
    for (let hash = 0; hash < this.heads.length; hash++)
      if (table[hash] !== this.heads[hash]) table[hash] = this.heads[hash];
    for (const [node, next] of this.chained) node.name_next = next;
    this.state.FS.nextInode = this.nextInode;
    for (const [terminal, input, output] of this.terminals) {
      if (terminal.input.length > 0 || input.length > 0) terminal.input = [...input];
      if (terminal.output.length > 0 || output.length > 0) terminal.output = [...output];
    }
    this.state.PIPEFS.nextname.current = this.pipeNames;
    this.state.SOCKFS.nextname.current = this.socketNames;
    return removed;
  }
}

/**
 * A directory's entries back as recorded, in their recorded order (readdir's); returns how many
 * entries were not recorded ones.
 */
function restoreEntries(directory: FsNode, entries: Array<[string, FsNode]>): number {
  const contents = directory.contents as Record<string, FsNode>;
  const names = Object.keys(contents);
  // An entry named `__proto__` replaces the object's prototype instead of adding a key: no key
  // shows it, the prototype does.
  let same =
    names.length === entries.length && Object.getPrototypeOf(contents) === Object.prototype;
  for (let i = 0; same && i < names.length; i++) {
    const [name, node] = entries[i]!;
    same = names[i] === name && contents[name] === node;
  }
  if (same) return 0;
  const recorded = new Map(entries);
  let added = 0;
  for (const name of names) if (recorded.get(name) !== contents[name]) added++;
  if (Object.getPrototypeOf(contents) !== Object.prototype) added++;
  directory.contents = Object.fromEntries(entries);
  return added;
}
