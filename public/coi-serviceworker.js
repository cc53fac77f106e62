// Cross-origin isolation for static hosts that cannot set response headers (GitHub Pages, a plain
// file server). The page needs COOP + COEP to be `crossOriginIsolated`, which gives
// SharedArrayBuffer: tfjs WASM threads and the sandbox's interrupt of runaway Python. Our own server
// (`npm start`, scripts/serve.mjs) sends these headers itself; then src/ui/isolation.ts never
// registers this worker. Elsewhere it registers it once and reloads, and from then on this worker
// adds the headers to every same-origin response. Cross-origin requests (the model hub) pass
// through untouched: they are CORS requests, which COEP allows.
/* eslint-env serviceworker */
const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // A Chrome quirk: these requests throw if fetched from a worker with another mode.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  if (new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    fetch(request).then((response) => {
      if (response.status === 0 || response.type === 'opaqueredirect') return response;
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }),
  );
});
