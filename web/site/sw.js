// Keeps onnxtrim's page usable offline: the site's own files are cached when the page is first
// loaded; each request tries the network first (so a rebuilt site is picked up) and falls back to
// the cached copy when there is no network. Requests for other hosts are not handled (the page
// makes none).
'use strict';

const ONNXTRIM_CACHE = 'onnxtrim-site-v1';
const ONNXTRIM_FILES = ['./', 'index.html', 'style.css', 'app.js', 'worker.js',
                        'onnxtrim.js', 'onnxtrim-core.js', 'onnxtrim-core.wasm'];

self.addEventListener('install', (ev) => {
  ev.waitUntil(caches.open(ONNXTRIM_CACHE)
    .then((c) => Promise.all(ONNXTRIM_FILES.map((f) => c.add(f).catch(() => undefined))))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (ev) => {
  ev.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (ev) => {
  const req = ev.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  ev.respondWith(fetch(req).then((res) => {
    if (res.ok) {
      const copy = res.clone();
      caches.open(ONNXTRIM_CACHE).then((c) => c.put(req, copy));
    }
    return res;
  }).catch(() => caches.match(req, { ignoreSearch: true }).then((hit) => hit || Response.error())));
});
