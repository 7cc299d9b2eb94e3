// The web app's service worker (docs/web-app.md, Offline): on the first visit it caches every file
// of the site, so the page opens and works without a network afterwards. scripts/build-web.sh
// fills in FILES (every file of build-web/, relative to this one) and VERSION (a hash of their
// contents): a new build gets a new cache, and the old one is deleted once the new one is active.
// A new build waits (no skipWaiting) until no tab runs the old one, so one page never mixes the
// files of two builds; the first visit's page is claimed at once, so it works offline already.
const VERSION = "@VERSION@";
const FILES = "@FILES@";
const CACHE = `meshport-web-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(FILES.map((f) => new URL(f, self.registration.scope).href));
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys())
      if (name.startsWith('meshport-web-') && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

// The site's own files from the cache (the query string ignored), anything else from the network.
self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(self.registration.scope)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(request, { ignoreSearch: true });
    return hit || fetch(request);
  })());
});
