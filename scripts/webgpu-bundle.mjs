// The WebGPU bench as one folder that runs with nothing installed, for a lent GPU machine (no Node,
// no npm, no network, minutes of device time): `npm run bench:webgpu -- --bundle DIR`. In DIR:
//   run.sh          unpacks the rest into a temporary folder and runs the bench there
//   node.xz         this Node (process.execPath): x86-64 Linux, it needs only glibc and libstdc++,
//                   and it is the Node the project's tests run on. Debian's nodejs package was the
//                   other choice: Node 18 (the project needs 20.19 or later), and its libnode
//                   needs ICU, libuv, OpenSSL and six more packages beside it
//   dawn.node.xz    Dawn's Node addon (the `webgpu` npm package's x86-64 Linux build)
//   bench.tar.xz    src/bench/webgpu_node.ts bundled into one file by esbuild, tfjs's WASM files
//                   beside it, the suite (webgpu-bench.mjs), Dawn's loader and the demo model
//   debs/           the Vulkan loader and libglvnd's libraries (what NVIDIA's Vulkan driver links
//                   against), as Debian packages (apt-get download), unpacked by run.sh
//   bundle.json     what went in: versions, the commit, sizes
// Node and Dawn are compressed once and kept under runs/webgpu-bundle-cache/ (a minute of xz).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DAWN_PACKAGE = 'webgpu@0.6.2';
/** The Vulkan loader, and the libraries NVIDIA's Vulkan driver (libGLX_nvidia) links against. */
const DEBS = ['libvulkan1', 'libglvnd0', 'libglx0', 'libgl1', 'libegl1', 'libgles2', 'libopengl0'];
const LIMIT_BYTES = 60 * 2 ** 20;
const cache = join(root, 'runs', 'webgpu-bundle-cache');
const log = (text) => process.stderr.write(`[bundle] ${text}\n`);

/**
 * Dawn for Node (the `webgpu` package), fetched into runs/ on first use so that installs and CI
 * never download it unless a WebGPU bench asks: it is 51 MB for every platform. Its index.js.
 */
export function ensureDawn() {
  const dir = join(root, 'runs', 'webgpu-node');
  const index = join(dir, 'package', 'index.js');
  if (existsSync(index)) return index;
  mkdirSync(dir, { recursive: true });
  log(`fetching ${DAWN_PACKAGE} (Dawn for Node) into ${dir}`);
  const tarball = execFileSync('npm', ['pack', DAWN_PACKAGE, '--silent'], { cwd: dir })
    .toString()
    .trim();
  execFileSync('tar', ['xzf', tarball], { cwd: dir });
  return index;
}

const hasXz = spawnSync('xz', ['--version'], { stdio: 'ignore' }).status === 0;
const PYTHON_XZ = `import lzma, shutil, sys
with open(sys.argv[1], 'rb') as f, lzma.open(sys.argv[2], 'wb', preset=6) as g:
    shutil.copyfileobj(f, g, 1 << 20)`;

/**
 * `xz -6` on every core (Python's lzma where the system has no xz), of `from` into `to`, through a
 * temporary name: no half files.
 */
function compress(from, to) {
  const partial = `${to}.partial`;
  if (hasXz) execFileSync('sh', ['-c', 'xz -6 -T0 -c "$1" > "$2"', 'xz', from, partial]);
  else execFileSync('python3', ['-c', PYTHON_XZ, from, partial]);
  renameSync(partial, to);
}

/** `from` compressed, from the cache when the same file was compressed before. */
function cachedXz(from, name) {
  const { size, mtimeMs } = statSync(from);
  const cached = join(cache, `${name}-${size}-${Math.round(mtimeMs)}.xz`);
  if (!existsSync(cached)) {
    mkdirSync(cache, { recursive: true });
    const started = performance.now();
    log(`compressing ${from} (${(size / 2 ** 20).toFixed(1)} MiB)`);
    compress(from, cached);
    log(`  ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return cached;
}

/** The packages' .deb files, downloaded into the cache (after `apt-get update` if need be). */
function debs() {
  const dir = join(cache, 'debs');
  const have = () => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.deb')) : []);
  const missing = DEBS.filter((name) => !have().some((file) => file.startsWith(`${name}_`)));
  if (missing.length > 0) {
    mkdirSync(dir, { recursive: true });
    const download = () =>
      execFileSync('apt-get', ['download', '-q', ...missing], { cwd: dir, stdio: 'pipe' });
    try {
      download();
    } catch {
      try {
        execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe' });
        download();
      } catch (error) {
        throw new Error(
          `could not download ${missing.join(' ')} with apt-get (${error.message.trim()}). ` +
            `The bundle needs Debian's packages for x86-64: run 'apt-get download ${missing.join(' ')}' in ${dir}.`,
        );
      }
    }
  }
  return DEBS.map((name) =>
    join(
      dir,
      have().find((file) => file.startsWith(`${name}_`)),
    ),
  );
}

/** esbuild (a dev dependency; vite and tsx build with it too). */
async function esbuild() {
  try {
    return await import('esbuild');
  } catch {
    throw new Error('esbuild is missing from node_modules: run npm install');
  }
}

/** Writes src/bench/webgpu_node.ts as one ES module, with what its bundled packages expect. */
async function bundleBench(outfile) {
  const { build } = await esbuild();
  await build({
    entryPoints: [join(root, 'src', 'bench', 'webgpu_node.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // tfjs's WASM backend is CommonJS: it loads its .wasm files from __dirname (beside this file)
    banner: {
      js: [
        "import { createRequire as __createRequire } from 'node:module';",
        "import { fileURLToPath as __fileURLToPath } from 'node:url';",
        'const require = __createRequire(import.meta.url);',
        'const __filename = __fileURLToPath(import.meta.url);',
        "const __dirname = __fileURLToPath(new URL('.', import.meta.url));",
      ].join('\n'),
    },
  });
}

/** Folder size in bytes, subfolders included. */
function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

const git = (...args) => {
  try {
    return execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return null;
  }
};

/** Writes the bundle into `dir` (replacing an earlier bundle there); what went in. */
export async function buildBundle(dir) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the bundle carries this Node, so it is built on x86-64 Linux (this is ${process.platform}-${process.arch})`,
    );
  const out = resolve(dir);
  if (existsSync(out) && readdirSync(out).length > 0 && !existsSync(join(out, 'run.sh')))
    throw new Error(
      `${out} holds other files: the bundle is written into a new or earlier bundle's folder`,
    );
  const started = performance.now();
  const dawn = dirname(ensureDawn());
  const dawnAddon = join(dawn, 'dist', 'linux-x64', 'dawn.node');
  const stage = mkdtempSync(join(tmpdir(), 'webgpu-bundle-'));
  try {
    log('bundling src/bench/webgpu_node.ts');
    await bundleBench(join(stage, 'bench.mjs'));
    const wasm = join(root, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist');
    for (const name of readdirSync(wasm).filter((f) => f.endsWith('.wasm')))
      copyFileSync(join(wasm, name), join(stage, name));
    copyFileSync(join(root, 'scripts', 'webgpu-bench.mjs'), join(stage, 'suite.mjs'));
    copyFileSync(join(root, 'scripts', 'relaxed-simd.mjs'), join(stage, 'relaxed-simd.mjs'));
    mkdirSync(join(stage, 'dawn'));
    for (const name of ['index.js', 'package.json', 'LICENSE.md'])
      copyFileSync(join(dawn, name), join(stage, 'dawn', name));
    cpSync(join(root, 'public', 'models', 'demo'), join(stage, 'demo'), { recursive: true });

    rmSync(out, { recursive: true, force: true });
    mkdirSync(join(out, 'debs'), { recursive: true });
    log('compressing the bench');
    execFileSync('tar', ['-cf', `${stage}.tar`, '-C', stage, '.']);
    compress(`${stage}.tar`, join(out, 'bench.tar.xz'));
    copyFileSync(cachedXz(process.execPath, `node-${process.version}`), join(out, 'node.xz'));
    copyFileSync(cachedXz(dawnAddon, 'dawn'), join(out, 'dawn.node.xz'));
    const packages = debs();
    for (const deb of packages) copyFileSync(deb, join(out, 'debs', basename(deb)));
    copyFileSync(join(root, 'scripts', 'webgpu-bundle-run.sh'), join(out, 'run.sh'));
    chmodSync(join(out, 'run.sh'), 0o755);
  } finally {
    rmSync(stage, { recursive: true, force: true });
    rmSync(`${stage}.tar`, { force: true });
  }
  const files = Object.fromEntries(
    ['run.sh', 'node.xz', 'dawn.node.xz', 'bench.tar.xz', 'debs'].map((f) => [
      f,
      sizeOf(join(out, f)),
    ]),
  );
  const info = {
    node: process.version,
    dawn: DAWN_PACKAGE,
    debs: readdirSync(join(out, 'debs')),
    commit: git('rev-parse', 'HEAD'),
    changed_files: git('status', '--porcelain', '--untracked-files=no')?.split('\n').filter(Boolean)
      .length,
    built: new Date().toISOString(),
    bytes: sizeOf(out),
    files,
  };
  writeFileSync(join(out, 'bundle.json'), `${JSON.stringify(info, null, 2)}\n`);
  info.bytes = sizeOf(out);
  if (info.bytes > LIMIT_BYTES)
    throw new Error(
      `the bundle is ${(info.bytes / 2 ** 20).toFixed(1)} MiB, over its ${LIMIT_BYTES / 2 ** 20} MiB`,
    );
  log(
    `${out}: ${(info.bytes / 2 ** 20).toFixed(1)} MiB in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { dir: out, ...info };
}
