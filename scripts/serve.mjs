#!/usr/bin/env node
// Serves the built page (dist/) with the headers the app needs: COOP/COEP for cross-origin
// isolation (SharedArrayBuffer: WASM threads, the sandbox interrupt) and a CSP. On 127.0.0.1 by
// default; `--host` (or HOST=0.0.0.0) serves a room's network (README: "Serving a classroom").
//
//   node scripts/serve.mjs [--host [ADDRESS]] [--port N] [--dir DIR] [--cert FILE --key FILE]
//   (also HOST=, PORT=, SERVE_DIR=; `npm start -- --host` passes its arguments on here)
//
// Why a hand-written server rather than `vite preview`: the tests start it in-process with and
// without isolation (test/helpers/browser_harness.ts, scripts/browser.ts), it needs nothing
// installed, and every response (the workers', the .wasm files', the error pages) gets the same
// headers from one place. Anyone on the network can reach it under `--host`, so it answers any
// request it cannot serve with a 4xx and stays up (test/server/serve.test.ts fuzzes it): only GET
// and HEAD, only regular files whose real path lies inside the served folder.
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { networkInterfaces } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.safetensors': 'application/octet-stream',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Longest request target served; longer ones get 414 (Node itself answers 431 past 16 KiB). */
const MAX_URL = 4096;

/**
 * The headers every response carries when isolation is on. `hubOrigin` is allowed in connect-src.
 */
export function isolationHeaders(hubOrigin = 'https://huggingface.co') {
  return {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'",
      "worker-src 'self' blob:",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      `connect-src 'self' ${hubOrigin} https://*.huggingface.co https://*.hf.co http://127.0.0.1:* http://localhost:*`,
    ].join('; '),
  };
}

/** A path inside `base` (resolved, no `..` segment), or the status that refuses the target. */
function targetPath(base, url) {
  if (url.length > MAX_URL) return { status: 414 };
  const raw = url.split(/[?#]/, 1)[0] ?? '';
  // origin-form only: no `*`, no absolute-form (`http://host/...`), no `//host/...`
  if (!raw.startsWith('/') || raw.startsWith('//')) return { status: 400 };
  let path;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return { status: 400 }; // bad percent-encoding (`%E0%A4%A`)
  }
  if (path.includes('\0') || path.includes('\\')) return { status: 400 };
  if (path.split('/').includes('..')) return { status: 403 };
  const file = resolve(base, `.${path}`);
  if (file !== base && !file.startsWith(base + sep)) return { status: 403 };
  return { file };
}

/**
 * The regular file a path names (a folder names its index.html), if its real path (links
 * followed) lies inside `realBase`; else null.
 */
function servedFile(file, realBase) {
  try {
    let stat = statSync(file);
    if (stat.isDirectory()) {
      file = join(file, 'index.html');
      stat = statSync(file);
    }
    if (!stat.isFile()) return null;
    const real = realpathSync(file);
    if (!real.startsWith(realBase + sep)) return null;
    return { file: real, size: stat.size };
  } catch {
    return null; // missing, ENAMETOOLONG, EACCES, a loop of links...
  }
}

const reasons = {
  400: 'bad request',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  414: 'URI too long',
  500: 'internal error',
};

/**
 * Starts a static server over `dir`. `isolate: false` leaves out COOP/COEP so tests can cover
 * the page without cross-origin isolation; `tls` ({ cert, key }, PEM) serves https. Resolves to
 * { url, port, close }.
 */
export function serveStatic({
  dir = join(root, 'dist'),
  port = 0,
  host = '127.0.0.1',
  isolate = true,
  tls = undefined,
} = {}) {
  const base = resolve(dir);
  let realBase = base;
  try {
    realBase = realpathSync(base);
  } catch {
    // a folder that does not exist (yet): every request is a 404
  }
  const common = () => ({
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    ...(isolate ? isolationHeaders() : {}),
  });
  const refuse = (res, status, extra = {}) => {
    const body = `${status} ${reasons[status] ?? 'error'}\n`;
    res.writeHead(status, {
      ...common(),
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      ...extra,
    });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };

  const handle = (req, res) => {
    res.on('error', () => res.destroy());
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        refuse(res, 405, { Allow: 'GET, HEAD' });
        return;
      }
      const target = targetPath(base, req.url ?? '');
      if (!target.file) {
        refuse(res, target.status);
        return;
      }
      const found = servedFile(target.file, realBase);
      if (!found) {
        refuse(res, 404);
        return;
      }
      res.writeHead(200, {
        ...common(),
        'Content-Type': types[extname(found.file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': found.size,
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      // an error reading the file (removed, replaced mid-read) drops this connection only
      pipeline(createReadStream(found.file), res, () => {});
    } catch (error) {
      console.error(
        `serve.mjs: ${JSON.stringify(`${req.method} ${req.url}`.slice(0, 200))}: ${error}`,
      );
      if (res.headersSent) res.destroy();
      else refuse(res, 500);
    }
  };
  const server = tls ? createHttpsServer(tls, handle) : createServer(handle);
  // a failed TLS handshake (a client that does not trust the certificate yet) closes that socket
  server.on('tlsClientError', (_error, socket) => socket.destroy());
  // Requests Node's parser rejects (a broken request line, an unknown method, a header too large):
  // answer what it is, then close.
  server.on('clientError', (error, socket) => {
    const status =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? '431 Request Header Fields Too Large'
        : error.code === 'HPE_INVALID_METHOD'
          ? '405 Method Not Allowed'
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? '408 Request Timeout'
            : '400 Bad Request';
    if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  server.on('connection', (socket) => socket.on('error', () => socket.destroy()));

  return new Promise((resolveServer, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (error) => console.error(`serve.mjs: ${error.message}`));
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolveServer({
        url: `${tls ? 'https' : 'http'}://${shown}:${actualPort}/`,
        port: actualPort,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * Reads the command line and the environment: `--host` alone (or HOST=0.0.0.0) serves every
 * interface; `--host ADDRESS`, `--port N`, `--dir DIR`, `--flag=value` too. Throws on a bad value.
 */
export function parseServeArgs(argv = process.argv.slice(2), env = process.env) {
  // HOST counts only as an address (0.0.0.0, an IP, localhost): zsh and others export HOST as the
  // machine's name, which would quietly put the page on the network.
  const envHost = /^(localhost|[\d.]+|[\da-fA-F:]*:[\da-fA-F:.]*)$/.test(env.HOST ?? '')
    ? env.HOST
    : '';
  const options = {
    host: envHost || '127.0.0.1',
    port: env.PORT ?? '5173',
    dir: env.SERVE_DIR || join(root, 'dist'),
    cert: '',
    key: '',
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [name, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const next = () => {
      if (inline !== undefined) return inline;
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) return undefined;
      i++;
      return value;
    };
    if (name === '--host') options.host = next() ?? '0.0.0.0';
    else if (name === '--port') options.port = next() ?? '';
    else if (name === '--dir') options.dir = next() ?? '';
    else if (name === '--cert') options.cert = next() ?? '';
    else if (name === '--key') options.key = next() ?? '';
    else if (name === '--help' || name === '-h') options.help = true;
    else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  const port = Number(options.port);
  if (!/^\d+$/.test(String(options.port)) || port > 65535)
    throw new Error(`--port wants a number from 0 to 65535, not "${options.port}"`);
  if (!options.host) throw new Error('--host= wants an address');
  if (!options.dir) throw new Error('--dir wants a folder');
  if (Boolean(options.cert) !== Boolean(options.key))
    throw new Error('https wants both --cert FILE and --key FILE (PEM)');
  return { ...options, port, dir: resolve(options.dir) };
}

/** The addresses other machines can open: each non-internal IPv4 address of this one. */
export function lanAddresses() {
  const found = [];
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? [])
      if (!entry.internal && (entry.family === 'IPv4' || entry.family === 4))
        found.push(entry.address);
  return found;
}

const USAGE = `Usage: node scripts/serve.mjs [--host [ADDRESS]] [--port N] [--dir DIR] [--cert FILE --key FILE]
  (npm start -- --host ...)   also HOST=, PORT=, SERVE_DIR=
  --host           serve every network interface (0.0.0.0), for a classroom
  --host ADDRESS   serve one address (default 127.0.0.1: this computer only)
  --port N         port (default 5173; 0 picks a free one)
  --dir DIR        folder to serve (default dist/)
  --cert, --key    serve https with this certificate and key (PEM): the page is then isolated on
                   the network too (README: "Serving a classroom")`;

async function main() {
  let options;
  try {
    options = parseServeArgs();
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(USAGE);
    return;
  }
  const { host, port, dir } = options;
  if (dir === join(root, 'dist') && !existsSync(join(dir, 'index.html'))) {
    console.error('dist/ is missing: run `npm start` (it builds first) or `npx vite build`.');
    process.exit(1);
  }
  if (!existsSync(dir)) {
    console.error(`${dir} does not exist.`);
    process.exit(1);
  }
  let served;
  try {
    const tls = options.cert
      ? { cert: readFileSync(options.cert), key: readFileSync(options.key) }
      : undefined;
    served = await serveStatic({ dir, port, host, tls });
  } catch (error) {
    console.error(
      `Could not serve on ${host}:${port}: ${error.message}. ` +
        (error.code === 'EADDRINUSE'
          ? 'Pick another port with --port N (or PORT=N).'
          : 'Check --host (or HOST), --cert and --key.'),
    );
    process.exit(1);
  }
  const scheme = options.cert ? 'https' : 'http';
  const everywhere = host === '0.0.0.0' || host === '::';
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (loopback) {
    console.log(
      `Serving the trainer at ${served.url} (cross-origin isolated), this computer only.`,
    );
    console.log('To serve a room: npm start -- --host (or HOST=0.0.0.0 npm start).');
  } else {
    console.log(
      `Serving the trainer on ${everywhere ? 'every network interface' : host}, port ${served.port}. Open:`,
    );
    for (const address of everywhere ? lanAddresses() : [host])
      console.log(
        `  ${scheme}://${address.includes(':') ? `[${address}]` : address}:${served.port}/`,
      );
    if (everywhere)
      console.log(
        `  ${scheme}://localhost:${served.port}/   (this computer, cross-origin isolated)`,
      );
    if (scheme === 'http')
      console.log(
        'Over plain http on a network address the browser does not isolate the page: it trains, with\n' +
          'WASM on one thread and no WebGPU, and a runaway program costs its sandbox worker. Full\n' +
          'isolation: --cert/--key, or see README "Serving a classroom".',
      );
  }
  console.log('Press Ctrl+C to stop.');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
