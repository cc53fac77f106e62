// Fuzzes scripts/serve.mjs, the server `npm start -- --host` puts on a classroom's network: a few
// hundred malformed, hostile and random requests over raw TCP and http.request, to 127.0.0.1 only.
// Every one gets a 2xx/4xx answer or a clean close, the server stays up, and no file outside the
// served folder comes back (a secret sits beside it, and in a sibling folder whose name starts
// with the served folder's, reached by every form of traversal).
//
// SERVE_SCRIPT=/tmp/old_serve.mjs runs the same requests against another copy of the server (it
// is copied to scripts/ beside the served dist/, so one that serves `../dist` from its own
// folder and reads only PORT works too): how this file was checked to fail on the server before
// it (one `%E0%A4%A` killed it; `/..%2fdist-secret%2fsecret.txt` served the sibling's file).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseServeArgs } from '../../scripts/serve.mjs';

const repo = join(import.meta.dirname, '..', '..');
const SECRET = `secret-${process.pid}-${Date.now()}`;

/** What one request got: the bytes the server sent, and how the connection ended. */
type Outcome = { data: string; end: 'closed' | 'reset' | 'refused' | 'hung' };

const base = mkdtempSync(join(tmpdir(), 'serve-fuzz-'));
const dist = join(base, 'dist');
let child: ChildProcess;
let port = 0;
let output = '';

beforeAll(async () => {
  mkdirSync(join(dist, 'sub'), { recursive: true });
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<p>root</p>');
  writeFileSync(join(dist, 'sub', 'index.html'), '<p>sub</p>');
  writeFileSync(join(dist, 'sub', 'notes.txt'), 'notes');
  writeFileSync(join(dist, 'a.wasm'), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  writeFileSync(join(dist, 'assets', 'worker.js'), 'self.onmessage = () => {};');
  writeFileSync(join(dist, 'assets', 'big.bin'), new Uint8Array(4 << 20));
  writeFileSync(join(base, 'secret.txt'), SECRET);
  mkdirSync(join(base, 'dist-secret'));
  writeFileSync(join(base, 'dist-secret', 'secret.txt'), SECRET);
  // links inside the served folder that lead out of it
  symlinkSync(join(base, 'secret.txt'), join(dist, 'link.txt'));
  symlinkSync(join(base, 'dist-secret'), join(dist, 'linkdir'));

  let script = join(repo, 'scripts', 'serve.mjs');
  if (process.env.SERVE_SCRIPT) {
    mkdirSync(join(base, 'scripts'));
    script = join(base, 'scripts', 'serve.mjs');
    copyFileSync(process.env.SERVE_SCRIPT, script);
  }
  child = spawn(process.execPath, [script, '--host', '127.0.0.1', '--port', '0', '--dir', dist], {
    env: { ...process.env, PORT: '0', HOST: '', SERVE_DIR: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 10_000);
    const look = () => {
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${output}`)));
  });
}, 20_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill();
  rmSync(base, { recursive: true, force: true });
});

/**
 * Sends `bytes` on a fresh connection and collects the answer: the connection is half-closed once
 * the server has been quiet for 250 ms, and given up on ('hung') after 4 s.
 */
function raw(bytes: string | Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    let settled = false;
    const finish = (end: Outcome['end']) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearTimeout(hard);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks).toString('latin1'), end });
    };
    let idle = setTimeout(() => socket.end(), 250);
    const hard = setTimeout(() => finish('hung'), 4_000);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      clearTimeout(idle);
      idle = setTimeout(() => socket.end(), 250);
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ECONNREFUSED' ? 'refused' : 'reset'),
    );
  });
}

/** The status codes of the responses in `data` (several when requests were pipelined). */
function statuses(data: string): number[] {
  return [...data.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
}

/** Why an outcome is not acceptable, or null: a 2xx/4xx answer or a clean close, no secret. */
function fault(outcome: Outcome): string | null {
  if (outcome.end === 'refused') return 'connection refused: the server is down';
  if (outcome.end === 'hung') return 'no answer and no close in 4 s';
  if (outcome.data.includes(SECRET)) return 'served the secret';
  if (outcome.data.length > 0 && !/^HTTP\/1\.1 [24]\d\d /.test(outcome.data))
    return `answered ${JSON.stringify(outcome.data.slice(0, 40))}`;
  const bad = statuses(outcome.data).filter((s) => s >= 500 || s < 200 || (s >= 300 && s < 400));
  if (bad.length) return `status ${bad.join(', ')}`;
  return null;
}

/**
 * Runs `requests` (raw bytes), `width` at a time, and returns the faults found; with `refusals`,
 * any answer below 400 is one.
 */
async function fuzz(
  requests: (string | Buffer)[],
  { width = 24, refusals = false, seen = new Map<string, number>() } = {},
): Promise<string[]> {
  const faults: string[] = [];
  for (let i = 0; i < requests.length; i += width) {
    const batch = requests.slice(i, i + width);
    const outcomes = await Promise.all(batch.map(raw));
    outcomes.forEach((outcome, j) => {
      const codes = statuses(outcome.data);
      const key = codes.length ? String(codes[0]) : outcome.end;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      const served = codes.filter((code) => code < 400);
      const why = fault(outcome) ?? (refusals && served.length ? `status ${served}` : null);
      if (why) faults.push(`${JSON.stringify(String(batch[j]).slice(0, 80))}: ${why}`);
    });
  }
  return faults;
}

/** A request line with `Connection: close`, so the server answers once and closes. */
const get = (target: string, method = 'GET', version = 'HTTP/1.1') =>
  `${method} ${target} ${version}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;

/** A fixed-seed generator (mulberry32): the same requests every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every traversal form we know towards the secret beside dist/ and in dist-secret/. */
const TRAVERSALS = [
  '/../secret.txt',
  '/../../secret.txt',
  '/..%2fsecret.txt',
  '/..%2Fsecret.txt',
  '/%2e%2e/secret.txt',
  '/%2E%2E/secret.txt',
  '/%2e%2e%2fsecret.txt',
  '/.%2e/secret.txt',
  '/%2e./secret.txt',
  '/sub/../../secret.txt',
  '/sub/..%2f..%2fsecret.txt',
  '/sub/%2e%2e/%2e%2e/secret.txt',
  '/./../secret.txt',
  '//../secret.txt',
  '/..//secret.txt',
  '/..\\secret.txt',
  '/..%5csecret.txt',
  '/..%5Csecret.txt',
  '/%252e%252e/secret.txt',
  '/%252e%252e%252fsecret.txt',
  '/..%00/secret.txt',
  '/secret.txt%00.html',
  '/../dist-secret/secret.txt',
  '/..%2fdist-secret%2fsecret.txt',
  '/%2e%2e%2fdist-secret%2fsecret.txt',
  '/%2e%2e/dist-secret/secret.txt',
  '/sub/..%2f..%2fdist-secret/secret.txt',
  '/..%2fdist-secret/secret.txt?x=1',
  '/..%2fdist-secret/secret.txt#frag',
  '/link.txt',
  '/linkdir/secret.txt',
  '/linkdir/',
  `/${encodeURIComponent(join(base, 'secret.txt'))}`,
  `/${encodeURI(join(base, 'secret.txt'))}`,
  `/%2F${encodeURIComponent(join(base, 'secret.txt').slice(1))}`,
  `${join(base, 'secret.txt')}`,
  `http://127.0.0.1/../secret.txt`,
  `file://${join(base, 'secret.txt')}`,
  // last: these killed the old server (a URIError), and the forms above should be tried first
  '/..%c0%afsecret.txt',
  '/..%e0%80%afsecret.txt',
  '/..%u2216secret.txt',
];

/** Malformed, absurd and unusual requests, each written by hand. */
const MALFORMED = [
  get('/%E0%A4%A'),
  get('/%'),
  get('/%zz'),
  get('/%E0%A4'),
  get('/%ff%fe'),
  get('/%00'),
  get('/\0'),
  get('/index.html%00'),
  get('/index.html\0.js'),
  get(`/${'a'.repeat(5_000)}`),
  get(`/${'%41'.repeat(2_000)}`),
  get(`/${'a/'.repeat(3_000)}`),
  `GET /${'b'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  `GET / HTTP/1.1\r\nHost: x\r\nX-Long: ${'c'.repeat(40_000)}\r\n\r\n`,
  get(`/${'x'.repeat(300)}`),
  get(`/${'x/'.repeat(200)}index.html`),
  get('*'),
  get('*', 'OPTIONS'),
  get('/', 'POST'),
  get('/', 'PUT'),
  get('/', 'DELETE'),
  get('/', 'PATCH'),
  get('/', 'OPTIONS'),
  get('/', 'TRACE'),
  get('/', 'PROPFIND'),
  get('/', 'BREW'),
  get('/', 'get'),
  get('/', 'G\x01T'),
  get('/', 'GET', 'HTTP/2.0'),
  get('/', 'GET', 'HTTP/1.0'),
  get('/', 'GET', 'HTTP/0.9'),
  get('/', 'GET', 'FOO/1.1'),
  get('/', 'GET', ''),
  'GET /\r\n\r\n',
  'GET\r\n\r\n',
  '\r\n\r\n',
  'GET / HTTP/1.1\r\n\r\n', // no Host
  'GET / HTTP/1.1\nHost: x\n\n',
  'GET  /  HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
  'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc', // body never finished
  'GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=99999-1\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /%E0%A4%A HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GET /sub HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]), // a TLS hello
  Buffer.from('GET /\xff\xfe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'latin1'),
  Buffer.from('GET /caf\u00e9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'utf8'),
  '',
];

/** Random requests from pieces that have broken servers before. */
function randomRequests(count: number, seed: number): (string | Buffer)[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  // mostly well-formed request lines, so that most requests reach the paths
  const methods = ['GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'HEAD', 'POST', 'OPTIONS', 'XYZ', ''];
  const pieces = [
    '..',
    '.',
    '%2e%2e',
    '%2e',
    '%2f',
    '%2F',
    '%5c',
    '\\',
    '%',
    '%z',
    '%E0%A4%A',
    '%c0%af',
    '%00',
    '%ff',
    '',
    'index.html',
    'sub',
    'a.wasm',
    'assets',
    'worker.js',
    'secret.txt',
    'dist-secret',
    'link.txt',
    'linkdir',
    '?',
    '#',
    ';',
    '~',
    'x'.repeat(300),
  ];
  const versions = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9', ''];
  const requests: (string | Buffer)[] = [];
  for (let i = 0; i < count; i++) {
    if (next() < 0.1) {
      // bytes at random
      const bytes = Buffer.alloc(1 + Math.floor(next() * 200));
      for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(next() * 256);
      requests.push(bytes);
      continue;
    }
    let path = '';
    const length = 1 + Math.floor(next() * 6);
    for (let j = 0; j < length; j++) path += `/${pick(pieces)}`;
    if (next() < 0.1) path = path.slice(1); // not starting with a slash
    let text = `${pick(methods)} ${path} ${pick(versions)}\r\nHost: 127.0.0.1\r\n`;
    if (next() < 0.3) text += `Content-Length: ${pick(['0', '3', '-5', 'abc', '1e9'])}\r\n`;
    if (next() < 0.2) text += `X-${pick(pieces)}: ${pick(pieces)}\r\n`;
    text += next() < 0.8 ? 'Connection: close\r\n\r\n' : '\r\n';
    if (next() < 0.1) text = text.slice(0, Math.floor(next() * text.length)); // cut short
    requests.push(Buffer.from(text, 'latin1'));
  }
  return requests;
}

/** A request through Node's http client: status, headers and body. */
function httpRequest(
  path: string,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, agent: false, timeout: 4_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('latin1'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 4 s`)));
    req.on('error', reject);
    req.end();
  });
}

describe('serve.mjs under malformed, hostile and random requests', () => {
  it('refuses every traversal to the secret beside the served folder', async () => {
    // each one answered with a 4xx (or a clean close): never a 2xx, nor a HEAD's headers
    const requests = TRAVERSALS.flatMap((target) => [get(target), get(target, 'HEAD')]);
    expect(await fuzz(requests, { refusals: true })).toEqual([]);
    expect(child.exitCode).toBeNull();
  });

  it('answers malformed requests with a 4xx or a clean close, and stays up', async () => {
    const faults = await fuzz(MALFORMED);
    expect(faults).toEqual([]);
    expect(child.exitCode).toBeNull();
    const expectStatus = async (request: string, status: number) =>
      expect(statuses((await raw(request)).data)[0], request.slice(0, 40)).toBe(status);
    await expectStatus(get('/%E0%A4%A'), 400);
    await expectStatus(get('/index.html%00'), 400);
    await expectStatus(get('/', 'POST'), 405);
    await expectStatus(get('/', 'BREW'), 405);
    await expectStatus(get(`/${'a'.repeat(5_000)}`), 414);
    await expectStatus(get('/../secret.txt'), 403);
    await expectStatus(get('/nothing-here.js'), 404);
    await expectStatus(get('/assets'), 404); // a folder without an index.html
  });

  it('answers a few hundred random requests with 2xx/4xx or a clean close', async () => {
    const seen = new Map<string, number>();
    const faults = await fuzz(randomRequests(300, 64), { seen });
    expect(faults).toEqual([]);
    // the requests reached every answer, not only the parser's 400
    console.log(`random requests' first answers: ${JSON.stringify(Object.fromEntries(seen))}`);
    for (const answer of ['200', '400', '403', '404', '405'])
      expect(seen.get(answer)).toBeGreaterThan(0);
    expect(child.exitCode).toBeNull();
  });

  it('survives clients that leave mid-response', async () => {
    for (let i = 0; i < 10; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port }, () =>
          socket.write(get('/assets/big.bin')),
        );
        socket.once('data', () => {
          socket.resetAndDestroy();
          resolve();
        });
        socket.on('error', () => resolve());
      });
    }
    expect((await httpRequest('/')).status).toBe(200);
    expect(child.exitCode).toBeNull();
  });

  it('still serves the page, with its headers, through http.request', async () => {
    const page = await httpRequest('/');
    expect(page.status).toBe(200);
    expect(page.body).toBe('<p>root</p>');
    expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(page.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    const head = await httpRequest('/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('11');
    expect(head.body).toBe('');
    const worker = await httpRequest('/assets/worker.js?v=1');
    expect(worker.headers['content-type']).toBe('text/javascript');
    expect(worker.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(worker.headers['cross-origin-resource-policy']).toBe('same-origin');
    const wasm = await httpRequest('/a.wasm');
    expect(wasm.headers['content-type']).toBe('application/wasm');
    expect(wasm.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect((await httpRequest('/sub/')).body).toBe('<p>sub</p>');
    expect((await httpRequest('/sub/notes.txt')).body).toBe('notes');
    const missing = await httpRequest('/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['cross-origin-embedder-policy']).toBe('require-corp');
    const post = await httpRequest('/', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    // the same through http.request's own encoding of odd paths
    const next = random(7);
    const codes = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const path = `/${Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        encodeURIComponent(
          String.fromCharCode(...Array.from({ length: 4 }, () => Math.floor(next() * 0x3000))),
        ),
      ).join('/')}`;
      const method = ['GET', 'HEAD', 'DELETE', 'OPTIONS'][i % 4]!;
      const answer = await httpRequest(path, method);
      codes.add(answer.status);
      expect(answer.body).not.toContain(SECRET);
    }
    expect([...codes].every((code) => code === 404 || code === 405 || code === 400)).toBe(true);
    expect(child.exitCode).toBeNull();
  });
});

describe('serve.mjs command line', () => {
  const env = {};
  it('defaults to 127.0.0.1:5173 and dist/', () => {
    const options = parseServeArgs([], env);
    expect(options).toMatchObject({ host: '127.0.0.1', port: 5173, help: false });
    expect(options.dir).toBe(join(repo, 'dist'));
  });
  it('serves every interface with a bare --host or HOST=0.0.0.0', () => {
    expect(parseServeArgs(['--host'], env).host).toBe('0.0.0.0');
    expect(parseServeArgs(['--host', '--port', '8080'], env)).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
    });
    expect(parseServeArgs([], { HOST: '0.0.0.0', PORT: '9000' })).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
    });
    // A shell that exports HOST as the machine's name does not put the page on the network.
    expect(parseServeArgs([], { HOST: 'my-laptop' }).host).toBe('127.0.0.1');
  });
  it('takes an address, a port and a folder, as `--name value` or `--name=value`', () => {
    expect(parseServeArgs(['--host', '192.168.1.5', '--port=0', '--dir=/srv/page'], env)).toEqual({
      host: '192.168.1.5',
      port: 0,
      dir: '/srv/page',
      cert: '',
      key: '',
      help: false,
    });
    expect(parseServeArgs(['--port', '8081'], { PORT: '9000' }).port).toBe(8081);
  });
  it('refuses bad values and unknown arguments', () => {
    expect(() => parseServeArgs(['--port', 'http'], env)).toThrow(/--port/);
    expect(() => parseServeArgs(['--port', '70000'], env)).toThrow(/--port/);
    expect(() => parseServeArgs(['--port'], env)).toThrow(/--port/);
    expect(() => parseServeArgs(['--hots'], env)).toThrow(/unknown argument/);
    expect(() => parseServeArgs(['--cert', 'c.pem'], env)).toThrow(/--key/);
    expect(parseServeArgs(['--host', '--cert', 'c.pem', '--key', 'k.pem'], env)).toMatchObject({
      host: '0.0.0.0',
      cert: 'c.pem',
      key: 'k.pem',
    });
  });
});
