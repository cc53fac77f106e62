// Programs that try to leave something in Emscripten's file system for a later episode (issue 63):
// files, renames, modes, times, links and devices anywhere a walk of `/` reaches (/proc and /dev
// included), bytes left in the terminals, pipes and the inode counter, a shared mapping of the
// stdlib's zip, the space quota. Each saboteur runs several times in a row on one worker; then
// LISTING, a stat of the whole tree, must print exactly what it printed as the worker's first
// program, and IMPORTER (modules no run has loaded, so their import stats the file system) must run.
// Used by test/env/fs_restore.test.ts (Node) and test/e2e/sandbox_fs.test.ts (Chromium).

/** Every path under `/`, deepest first, without following links (a helper the saboteurs share). */
const EVERYTHING = `import os, stat
def everything():
    found = []
    for root, dirs, files in os.walk('/', followlinks=False):
        found.append(root)
        found.extend(os.path.join(root, name) for name in dirs + files)
    return sorted(set(found), key=lambda p: (-p.count('/'), p))
def is_dir(path):
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
`;

/**
 * Names the saboteurs create or rename to: LISTING looks each up in every folder (a lookup goes
 * through Emscripten's name table, not the folder's entries, so it finds what readdir does not).
 */
const PROBE_NAMES = (
  'drop.txt __proto__ dropdir droplink dangling dropdev hardlink fifo fill answer_0 answer_1 ' +
  'space0 space1 f0 f1999 probe t big over me proc2 tmp2 other stdlib.zip'
).split(' ');

/**
 * The whole tree as a program sees it: for every path, its lstat (mode, size, inode, times in ns),
 * a directory's names in readdir order and which of the saboteurs' names (and each name with `~`)
 * a lookup finds there, a link's target, a regular file's content hash; then what the next file,
 * descriptor and pipe would be, the free-inode count, the working directory, and a newline written
 * to each terminal (which flushes whatever an earlier program left buffered there).
 */
export const LISTING = `import os, stat, json, hashlib
PROBE_NAMES = ${JSON.stringify(PROBE_NAMES)}
tree = {}
def entry(path):
    try:
        s = os.lstat(path)
    except OSError as e:
        found = {'error': e.errno}
        try:
            found['link'] = os.readlink(path)
        except OSError:
            pass
        return found
    found = {'mode': s.st_mode, 'size': s.st_size, 'ino': s.st_ino, 'nlink': s.st_nlink,
             'atime': s.st_atime_ns, 'mtime': s.st_mtime_ns, 'ctime': s.st_ctime_ns}
    if stat.S_ISLNK(s.st_mode):
        found['link'] = os.readlink(path)
    elif stat.S_ISREG(s.st_mode):
        try:
            with open(path, 'rb') as f:
                found['sha'] = hashlib.sha256(f.read()).hexdigest()[:16]
        except OSError as e:
            found['sha'] = e.errno
    return found
def walk(path):
    found = tree[path] = entry(path)
    if not stat.S_ISDIR(found.get('mode', 0)):
        return
    try:
        found['names'] = os.listdir(path)
    except OSError as e:
        found['names'] = e.errno
        return
    names = sorted(set(PROBE_NAMES) | {name + '~' for name in found['names']})
    found['found'] = [name for name in names if os.path.lexists(path.rstrip('/') + '/' + name)]
    for name in found['names']:
        walk(path.rstrip('/') + '/' + name)
walk('/')
probe = {'cwd': os.getcwd(), 'files': os.statvfs('/').f_files}
fd = os.open('/tmp/probe', os.O_CREAT | os.O_WRONLY)
probe['fd'], probe['ino'] = fd, os.fstat(fd).st_ino
os.close(fd)
os.remove('/tmp/probe')
r, w = os.pipe()
probe['pipe'] = [r, w, os.readlink('/proc/self/fd/%d' % r)]
os.close(r)
os.close(w)
print(json.dumps({'tree': tree, 'probe': probe}))
for device in ('/dev/tty', '/dev/tty1'):
    fd = os.open(device, os.O_WRONLY)
    os.write(fd, b'\\n')
    os.close(fd)
`;

/** Imports modules no run has loaded (so they are looked up on sys.path's files) and uses them. */
export const IMPORTER = {
  code: "import tomllib, zipfile, xml.dom.minidom\nprint(tomllib.loads('a = 1')['a'], zipfile.is_zipfile('/lib/python314.zip'), xml.dom.minidom.parseString('<b/>').documentElement.tagName)",
  output: '1 True b\n',
};

export interface FsSaboteur {
  name: string;
  code: string;
  /** What each of its runs must print, where that is part of the check. */
  output?: string;
}

export const FS_SABOTEURS: FsSaboteur[] = [
  {
    name: 'creates files, folders, links and devices in every folder, and fills the quota',
    code: `${EVERYTHING}
made = 0
for d in [p for p in everything() if is_dir(p)]:
    for action in (
        lambda: open(os.path.join(d, 'drop.txt'), 'w').write('answer 42'),
        lambda: open(os.path.join(d, '__proto__'), 'w').write('hidden from readdir'),
        lambda: os.mkdir(os.path.join(d, 'dropdir')),
        lambda: open(os.path.join(d, 'dropdir', 'inner.txt'), 'w').write('inner'),
        lambda: os.symlink('/lib/python314.zip', os.path.join(d, 'droplink')),
        lambda: os.symlink('/nowhere', os.path.join(d, 'dangling')),
        lambda: os.mknod(os.path.join(d, 'dropdev'), stat.S_IFCHR | 0o666, os.makedev(1, 3)),
        lambda: os.link('/lib/python314.zip', os.path.join(d, 'hardlink')),
        lambda: os.mkfifo(os.path.join(d, 'fifo')),
    ):
        try:
            action()
            made += 1
        except Exception:
            pass
for folder in ('/proc', '/tmp'):
    try:
        with open(folder + '/fill', 'wb') as f:
            while True:
                f.write(b'x' * 2**20)
    except OSError:
        pass
print('made', made > 20)
`,
    output: 'made True\n',
  },
  {
    name: 'renames and removes everything it can, /proc/self included',
    code: `${EVERYTHING}
for source, target in (('/proc/self', '/proc/me'), ('/proc', '/proc2'), ('/tmp', '/tmp2'),
                       ('/lib/python314.zip', '/tmp/stdlib.zip'), ('/home/pyodide', '/home/other')):
    try:
        os.rename(source, target)
    except OSError:
        pass
open('/tmp/over', 'w').write('x')
for target in ('/lib/python314.zip', '/proc/self', '/dev/null'):
    try:
        os.replace('/tmp/over', target)
    except OSError:
        pass
for path in everything():
    moved = path
    try:
        os.rename(path, path + '~')
        moved = path + '~'
    except OSError:
        pass
    try:
        os.rmdir(moved) if is_dir(moved) else os.unlink(moved)
    except OSError:
        pass
`,
  },
  {
    name: 'chmods everything and sets odd and extreme times on it, baseline files included',
    code: `${EVERYTHING}
TIMES = [(12345, 67890), (0, 0), (8.64e12, 8.64e12), (8.64e12 + 1, 1), (1e13, 1e13),
         (float('nan'), 0), (1e300, 1e300), (-1e15, -1e15), (1e15, 1e15)]
NS = [(2**63 - 1, 2**63 - 1), (-(2**63), -(2**63))]
paths = everything()
for path in paths:
    for times in TIMES:
        for follow in (True, False):
            try:
                os.utime(path, times, follow_symlinks=follow)
            except Exception:
                pass
    for ns in NS:
        try:
            os.utime(path, ns=ns)
        except Exception:
            pass
for path in paths:
    for mode in (0o777, 0o4755, 0):
        try:
            os.chmod(path, mode)
        except Exception:
            pass
`,
  },
  {
    name: 'leaves an answer in /proc and everywhere else, and builds a table across episodes',
    code: `import os
seen = [os.path.join(root, name) for root, _, files in os.walk('/') for name in files
        if name.startswith('answer')]
for folder in ('/proc', '/proc/self', '/dev', '/dev/shm', '/tmp', '/home/pyodide', '/'):
    try:
        with open(os.path.join(folder, 'answer_%d' % len(seen)), 'w') as f:
            f.write('42')
    except OSError:
        pass
print('seen', len(seen))
`,
    output: 'seen 0\n',
  },
  {
    name: 'leaves bytes in the terminals, pipes and descriptors open, the inode counter up, the cwd in /proc',
    code: `import os
for device in ('/dev/tty', '/dev/tty1'):
    fd = os.open(device, os.O_WRONLY)
    os.write(fd, b'LEAKED-FROM-AN-EARLIER-EPISODE')
pipes = [os.pipe() for _ in range(5)]
for i in range(2000):
    open('/tmp/f%d' % i, 'w').close()
os.chdir('/proc')
`,
  },
  {
    // The lockdown refuses `import mmap`; fs_guard.ts refuses the write-back too, should it ever load.
    name: "writes into the stdlib's zip through a shared mapping",
    code: `import mmap, os
fd = os.open('/lib/python314.zip', os.O_RDWR)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[0:4] = b'XXXX'
try:
    m.close()
except OSError as e:
    print(e.strerror)
`,
  },
];

/** Writes 40 MB to a new file under /proc, then prints the MB in all such files it can find. */
export const SPACE = `import os
n = len([name for name in os.listdir('/proc') if name.startswith('space')])
with open('/proc/space%d' % n, 'wb') as f:
    f.write(b'x' * (40 * 2**20))
print(sum(os.path.getsize(os.path.join(root, name)) for root, _, files in os.walk('/')
          for name in files if name.startswith('space')) // 2**20)
`;

/** A program's own extreme times: refused (EINVAL), and the run, its stats and imports go on. */
export const OWN_EXTREME_TIMES = {
  code: `import errno, os
open('/tmp/t', 'w').close()
seen = []
for times in ((1e15, 1e15), (-1e15, -1e15), (1e13, 0), (0, 8.64e12 + 1)):
    try:
        os.utime('/tmp/t', times)
        seen.append('set')
    except OSError as e:
        seen.append(errno.errorcode[e.errno])
for path in ('/lib/python314.zip', '/lib/python3.14', '/tmp', '/'):
    try:
        os.utime(path, (1e15, 1e15))
        seen.append('set')
    except OSError as e:
        seen.append(errno.errorcode[e.errno])
os.utime('/tmp/t', (8.64e12, -8.64e12))
import tomllib
print(seen, os.stat('/tmp/t').st_mtime, os.stat('/tmp/t').st_atime, tomllib.loads('a = 2')['a'])
`,
  output:
    "['EINVAL', 'EINVAL', 'EINVAL', 'EINVAL', 'EINVAL', 'EINVAL', 'EINVAL', 'EINVAL'] -8640000000000.0 8640000000000.0 2\n",
};

/** Parses LISTING's output: the JSON line, and what followed it (the terminals' flushed lines). */
export function parseListing(output: string): { listing: unknown; rest: string } {
  const newline = output.indexOf('\n');
  const line = newline < 0 ? output : output.slice(0, newline);
  try {
    return { listing: JSON.parse(line) as unknown, rest: output.slice(newline + 1) };
  } catch {
    return { listing: null, rest: output };
  }
}
