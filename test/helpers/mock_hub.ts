// A local stand-in for the Hugging Face hub: serves `/{owner}/{name}/resolve/{revision}/{file}`
// from a folder laid out as `{root}/{owner}/{name}/{file}` on 127.0.0.1, with the hub's error
// headers, CORS, and a log of every request so tests can assert that a load made none.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';

/** Options for the mock hub. */
export interface MockHubOptions {
  /** Folder with one subfolder per repo: `{root}/{owner}/{name}/config.json`, … */
  root: string;
  /** Repos that answer 401 GatedRepo, as gated models do without a token. */
  gated?: string[];
  /** Send the hub's X-Error-Code headers on 404 (default true); false acts like a plain file server. */
  errorHeaders?: boolean;
  /** Files (repo-relative) sent chunked without Content-Length. */
  unsized?: string[];
}

/** A running mock hub. */
export interface MockHub {
  url: string;
  /** Every request as "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

/** Starts the mock hub on an ephemeral loopback port. */
export async function startMockHub(options: MockHubOptions): Promise<MockHub> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    serve(options, req, res);
  });
  // Node closes idle keep-alive sockets after 5 s; a client reusing one at that moment gets
  // "fetch failed" (seen on a loaded CI machine). Tests never idle that long on purpose.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serve(options: MockHubOptions, req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Range');
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  if (req.method === 'OPTIONS') return void res.writeHead(204).end();
  const match = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(
    decodeURI((req.url ?? '').split('?')[0] ?? ''),
  );
  const fail = (status: number, code: string | null, message: string) => {
    if (code && options.errorHeaders !== false) {
      res.setHeader('X-Error-Code', code);
      res.setHeader('X-Error-Message', message);
    }
    res
      .writeHead(status, { 'Content-Type': 'text/plain' })
      .end(req.method === 'HEAD' ? undefined : message);
  };
  if (!match) return fail(404, null, 'not a resolve URL');
  const [, owner, name, revision, file] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  const repo = `${owner}/${name}`;
  const repoDir = join(options.root, owner, name);
  if (options.gated?.includes(repo))
    return fail(401, 'GatedRepo', `Access to model ${repo} is restricted.`);
  if (!existsSync(repoDir)) return fail(404, 'RepoNotFound', 'Repository not found');
  if (revision !== 'main') return fail(404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
  const path = normalize(join(repoDir, file));
  if (!path.startsWith(repoDir + sep) || !existsSync(path) || !statSync(path).isFile()) {
    return fail(404, 'EntryNotFound', `Entry not found: ${file}`);
  }
  const bytes = readFileSync(path);
  if (options.unsized?.includes(file)) {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }); // no length: sent chunked
  } else {
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(bytes.byteLength),
    });
  }
  if (req.method === 'HEAD') return void res.end();
  // Several writes, so clients see the body arrive in more than one chunk.
  const step = Math.max(1, Math.ceil(bytes.byteLength / 4));
  for (let offset = 0; offset < bytes.byteLength; offset += step)
    res.write(bytes.subarray(offset, offset + step));
  res.end();
}
