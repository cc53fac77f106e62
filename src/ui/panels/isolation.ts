// Cross-origin isolation on hosts without header control: registers public/coi-serviceworker.js
// (which adds COOP/COEP to our responses) and reloads once so the page comes back isolated.
// Skipped when the page is already isolated (our server sends the headers), when the browser
// cannot help (no service workers, not a secure context), after one try, or with `?coi=0` (tests
// of the non-isolated path).

/** Resolves true when the page is about to reload itself into an isolated one. */
export async function ensureIsolation(): Promise<boolean> {
  if (globalThis.crossOriginIsolated || !window.isSecureContext || !('serviceWorker' in navigator))
    return false;
  if (new URLSearchParams(location.search).get('coi') === '0') return false;
  const tried = 'coi-serviceworker-reloaded';
  try {
    const registration = await navigator.serviceWorker.register(
      new URL('coi-serviceworker.js', document.baseURI),
      { scope: './' },
    );
    if (navigator.serviceWorker.controller || sessionStorage.getItem(tried)) return false; // controlled, yet not isolated: give up quietly
    sessionStorage.setItem(tried, '1');
    const worker = registration.installing ?? registration.waiting ?? registration.active;
    if (worker && worker.state !== 'activated') {
      await new Promise<void>((resolve) =>
        worker.addEventListener('statechange', () => {
          if (worker.state === 'activated') resolve();
        }),
      );
    }
    location.reload();
    return true;
  } catch (error) {
    console.warn(
      `cross-origin isolation service worker not registered (${(error as Error).message}); running without WASM threads.`,
    );
    return false;
  }
}
