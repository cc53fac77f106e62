#!/usr/bin/env node
// Serves the built page (dist/) on 127.0.0.1 with the headers the app needs: COOP/COEP for
// cross-origin isolation (SharedArrayBuffer: WASM threads, the sandbox interrupt) and a CSP.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve } from 'node:path';
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
  '.safetensors': 'application/octet-stream',
  '.md': 'text/markdown',
  '.txt': 'text/plain',
};

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

/**
 * Starts a static server over `dir`. `isolate: false` leaves out COOP/COEP so tests can cover
 * the page without cross-origin isolation. Resolves to { url, close }.
 */
export function serveStatic({
  dir = join(root, 'dist'),
  port = 0,
  host = '127.0.0.1',
  isolate = true,
} = {}) {
  const base = resolve(dir);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = normalize(join(base, path));
    if (!file.startsWith(base)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const headers = {
      'Content-Type': types[extname(file)] ?? 'application/octet-stream',
      'Content-Length': statSync(file).size,
      'Cache-Control': 'no-cache',
    };
    if (isolate) Object.assign(headers, isolationHeaders());
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  });
  return new Promise((resolveServer, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const url = `http://${host}:${typeof address === 'object' && address ? address.port : port}/`;
      resolveServer({
        url,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 5173);
  if (!existsSync(join(root, 'dist', 'index.html'))) {
    console.error('dist/ is missing: run `npm start` (it builds first) or `npx vite build`.');
    process.exit(1);
  }
  serveStatic({ port }).then(
    ({ url }) => {
      console.log(`Serving the trainer at ${url} (cross-origin isolated). Press Ctrl+C to stop.`);
    },
    (error) => {
      console.error(
        `Could not listen on 127.0.0.1:${port}: ${error.message}. Set PORT to another port.`,
      );
      process.exit(1);
    },
  );
}
