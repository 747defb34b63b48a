// The service worker, served at /sw.js with scope "/". It turns Web Push messages into
// notifications (docs/api.md, "Turn-based tables and Web Push") and opens the table when
// one is tapped. It keeps the app itself for when there is no network: when it installs it
// caches every file of the build (the list, precache.json, is written by the build, which
// also writes the build's version into BUILD below, so that each build is a new worker with
// a cache of its own; older caches go when it activates). Online, everything still comes
// from the server: every page navigation goes there first, and the app's files too; the
// cache answers only when that fails (no network, or the server unreachable). Then the
// pages that work without the server (home, practice against the CPU on this device, the
// learn pages, the analysis board, a game kept on this device) get the app, and the others
// (a table, a game's page) the offline page. The API and the WebSocket are never touched.
// Plain JavaScript, copied into web/dist by Vite (it runs without the page, so it keeps its
// own few strings in Thai, English and Khmer).
/* eslint-env serviceworker */
'use strict';

const STRINGS = {
  en: {
    turn: 'Your turn',
    turnMove: 'Your turn — {opponent} played {move}',
    turnBody: 'Table {code}: tap to make your move.',
    over: 'Game over — {result}',
    overBody: 'Table {code}',
    whiteWins: 'White wins',
    blackWins: 'Black wins',
    draw: 'draw',
    vs: 'with {opponent}',
    rematch: '{opponent} offers a rematch',
    rematchBody: 'Table {code}: tap to accept or decline.',
    expired: 'The table ended after 45 days without a move',
    expiredBody: 'No winner or loser. Table {code}',
    generic: 'Makruk: something happened at your table',
    genericBody: 'Tap to open Makruk.',
    reasons: {
      checkmate: 'by checkmate',
      resignation: 'by resignation',
      agreement: 'by agreement',
      stalemate: 'stalemate: no legal move',
      'bare-kings': 'only the two kings are left',
      repetition: 'the same position three times',
      'insufficient-material': 'neither side can checkmate',
      'count-expired': 'the count reached its limit',
      'count-mate': 'checkmate while still counting',
      expired: 'the table ended after 45 days without a move',
    },
  },
  th: {
    turn: 'ถึงตาของคุณแล้ว',
    turnMove: 'ถึงตาของคุณ — {opponent} เดิน {move}',
    turnBody: 'โต๊ะ {code}: แตะเพื่อเดินตาของคุณ',
    over: 'จบเกม — {result}',
    overBody: 'โต๊ะ {code}',
    whiteWins: 'ฝ่ายขาวชนะ',
    blackWins: 'ฝ่ายดำชนะ',
    draw: 'เสมอ',
    vs: 'กับ {opponent}',
    rematch: '{opponent} ขอเล่นอีกกระดาน',
    rematchBody: 'โต๊ะ {code}: แตะเพื่อรับหรือปฏิเสธ',
    expired: 'โต๊ะจบลงเพราะไม่มีการเดินนาน 45 วัน',
    expiredBody: 'ไม่มีผู้ชนะหรือผู้แพ้ โต๊ะ {code}',
    generic: 'หมากรุกไทย: มีความเคลื่อนไหวที่โต๊ะของคุณ',
    genericBody: 'แตะเพื่อเปิดหมากรุกไทย',
    reasons: {
      checkmate: 'โดยการรุกจน',
      resignation: 'โดยการยอมแพ้',
      agreement: 'โดยตกลงเสมอกัน',
      stalemate: 'อับ ไม่มีตาเดิน',
      'bare-kings': 'เหลือแต่ขุนสองตัว',
      repetition: 'ตำแหน่งเดิมซ้ำสามครั้ง',
      'insufficient-material': 'ไม่มีฝ่ายใดรุกจนได้',
      'count-expired': 'นับครบเกณฑ์',
      'count-mate': 'รุกจนขณะยังนับอยู่',
      expired: 'โต๊ะจบลงเพราะไม่มีการเดินนาน 45 วัน',
    },
  },
  km: {
    turn: 'ដល់វេនរបស់អ្នកហើយ',
    turnMove: 'វេនរបស់អ្នក — {opponent} បានដើរ {move}',
    turnBody: 'តុ {code}៖ ចុចដើម្បីដើរវេនរបស់អ្នក។',
    over: 'ល្បែងបានបញ្ចប់ — {result}',
    overBody: 'តុ {code}',
    whiteWins: 'ខាងសឈ្នះ',
    blackWins: 'ខាងខ្មៅឈ្នះ',
    draw: 'ស្មើ',
    vs: 'ជាមួយ {opponent}',
    rematch: '{opponent} ស្នើលេងម្តងទៀត',
    rematchBody: 'តុ {code}៖ ចុចដើម្បីទទួល ឬបដិសេធ។',
    expired: 'តុបានបញ្ចប់ ដោយសារគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ',
    expiredBody: 'គ្មានអ្នកឈ្នះ ឬអ្នកចាញ់។ តុ {code}',
    generic: 'អុកថៃ និង អុកខ្មែរ៖ មានអ្វីមួយកើតឡើងនៅតុរបស់អ្នក',
    genericBody: 'ចុចដើម្បីបើក។',
    reasons: {
      checkmate: 'ដោយអុកស្លាប់',
      resignation: 'ដោយការចុះចាញ់',
      agreement: 'ដោយព្រមព្រៀងស្មើ',
      stalemate: 'អាប់៖ គ្មានការដើរ',
      'bare-kings': 'នៅសល់តែស្តេចពីរ',
      repetition: 'ទីតាំងដដែលបីដង',
      'insufficient-material': 'គ្មានខាងណាអាចអុកស្លាប់បាន',
      'count-expired': 'ការរាប់ដល់កំណត់',
      'count-mate': 'អុកស្លាប់ខណៈនៅកំពុងរាប់',
      expired: 'តុបានបញ្ចប់ ដោយសារគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ',
    },
  },
};

function pickLang(l) {
  if (l === 'th' || l === 'en' || l === 'km') return l;
  const nav = (self.navigator && (self.navigator.language || '')).toLowerCase();
  if (nav.startsWith('th')) return 'th';
  if (nav.startsWith('km')) return 'km';
  return 'en';
}

function fill(s, vars) {
  return s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined || vars[k] === null ? '' : String(vars[k])));
}

function str(v, max) {
  return typeof v === 'string' ? v.slice(0, max) : null;
}

/** The notification for one payload (null payload: the generic one). */
function notificationFor(p) {
  const code = p && /^[A-Z0-9]{6}$/.test(String(p.code || '')) ? String(p.code) : null;
  const S = STRINGS[pickLang(p && p.lang)];
  let url = '/';
  if (p && typeof p.url === 'string' && p.url.startsWith('/') && !p.url.startsWith('//')) url = p.url;
  else if (code) url = `/p/${code}`;
  const base = { icon: '/favicon.svg', data: { url, code, kind: (p && p.kind) || null }, lang: pickLang(p && p.lang) };
  if (code) {
    base.tag = code; // a newer notification about the table replaces the older one
    base.renotify = true;
  }
  const opponent = str(p && p.opponent, 40);
  const move = str(p && p.move, 16);
  const vars = { code: code || '', opponent: opponent || '', move: move || '' };
  switch (p && p.kind) {
    case 'turn':
      return {
        title: opponent && move ? fill(S.turnMove, vars) : S.turn,
        options: { ...base, body: fill(S.turnBody, vars) },
      };
    case 'over': {
      const r = p.result;
      const result = r === '1-0' ? S.whiteWins : r === '0-1' ? S.blackWins : S.draw;
      const reason = (p.reason && S.reasons[p.reason]) || '';
      const bits = [reason, opponent ? fill(S.vs, vars) : '', fill(S.overBody, vars)].filter(Boolean);
      return { title: fill(S.over, { result }), options: { ...base, body: bits.join(' · ') } };
    }
    case 'rematch':
      return { title: fill(S.rematch, vars), options: { ...base, body: fill(S.rematchBody, vars) } };
    case 'expired':
      return {
        title: S.expired,
        options: { ...base, body: [fill(S.expiredBody, vars), opponent ? fill(S.vs, vars) : ''].filter(Boolean).join(' · ') },
      };
    default:
      return { title: S.generic, options: { ...base, body: S.genericBody } };
  }
}

function parse(data) {
  if (!data) return null;
  let text = '';
  try {
    text = data.text();
  } catch {
    return null;
  }
  if (!text) return null;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

async function tellPages(p) {
  const list = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const c of list) {
    try {
      c.postMessage({ type: 'push', kind: (p && p.kind) || null, code: (p && p.code) || null });
    } catch {
      /* a closing page */
    }
  }
}

// The build's version (web/vite.config.ts writes it here in web/dist/sw.js; 'dev' in development).
const BUILD = 'dev';
const APP_CACHE = `makruk-app-${BUILD}`;
const OFFLINE_URL = '/offline.html';
const APP_URL = '/index.html';

// The pages the app shows without the server.
const OFFLINE_ROUTES = /^\/(?:|practice|analysis|learn(?:\/(?:makruk|ouk))?|local\/[0-9a-f]{12})\/?$/;
// The app's own files: the cache answers for them when the network fails.
const APP_FILES = /^\/(?:assets\/|core\/|icons\/|index\.html$|offline\.html$|favicon\.svg$|manifest\.webmanifest$)/;

// Whether this browser has WebAssembly SIMD (the same test as the page's core worker).
function wasmSimd() {
  try {
    return WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11]));
  } catch {
    return false;
  }
}

self.addEventListener('install', (event) => {
  self.skipWaiting();
  event.waitUntil(
    (async () => {
      // The build's files (the offline page alone where there is no list: in development).
      let files = [OFFLINE_URL];
      const list = await fetch('/precache.json', { cache: 'no-store' });
      if (list.ok) files = (await list.json()).files;
      // Of the module's two builds (core-worker.ts), the one this browser loads.
      const unused = wasmSimd() ? '/core/makruk.wasm' : '/core/makruk-simd.wasm';
      files = files.filter((f) => f !== unused);
      const cache = await caches.open(APP_CACHE);
      // straight from the server, not from the browser's HTTP cache
      await cache.addAll(files.map((f) => new Request(f, { cache: 'reload' })));
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith('makruk-') && name !== APP_CACHE) await caches.delete(name);
      }
      // The worker starts while the page's request is already on its way.
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable().catch(() => {});
      await self.clients.claim();
    })(),
  );
});

async function fromCache(path) {
  return caches.match(path, { cacheName: APP_CACHE });
}

// Page navigations always go to the server first; when that fails, the app (for the pages
// that work without the server) or the offline page. The app's own files also go to the
// server first, the cache answering only when that fails. Other requests (the API, the
// WebSocket, a game's picture) are not touched at all.
self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    event.respondWith(
      (async () => {
        try {
          const preloaded = await event.preloadResponse;
          if (preloaded) return preloaded;
          return await fetch(req);
        } catch (e) {
          const page = (OFFLINE_ROUTES.test(url.pathname) && (await fromCache(APP_URL))) || (await fromCache(OFFLINE_URL));
          if (page) return page;
          throw e;
        }
      })(),
    );
    return;
  }
  if (!APP_FILES.test(url.pathname)) return;
  event.respondWith(
    (async () => {
      try {
        return await fetch(req);
      } catch (e) {
        const kept = await fromCache(url.pathname);
        if (kept) return kept;
        throw e;
      }
    })(),
  );
});

self.addEventListener('push', (event) => {
  const p = parse(event.data);
  const n = notificationFor(p);
  event.waitUntil(
    (async () => {
      try {
        await self.registration.showNotification(n.title, n.options);
      } catch {
        // e.g. an option this browser does not know: show the bare notification
        await self.registration.showNotification(n.title, { body: n.options.body, tag: n.options.tag, data: n.options.data }).catch(() => {});
      }
      if (p && p.kind === 'turn' && self.navigator && typeof self.navigator.setAppBadge === 'function') {
        await self.navigator.setAppBadge().catch(() => {});
      }
      await tellPages(p).catch(() => {});
    })(),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const url = new URL(typeof data.url === 'string' ? data.url : '/', self.location.origin);
  event.waitUntil(
    (async () => {
      const list = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const c of list) {
        let u;
        try {
          u = new URL(c.url);
        } catch {
          continue;
        }
        if (u.origin === url.origin && u.pathname === url.pathname && 'focus' in c) return c.focus();
      }
      if (self.clients.openWindow) return self.clients.openWindow(url.href);
      return undefined;
    })(),
  );
});
