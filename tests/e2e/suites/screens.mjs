// Screens (issue 12, point 10) and the installable app: no empty row under a spectator's
// status card, no blank second line in it, the presence dot right after the name in the
// player bars, a promoted pawn drawn in the set's own style on the home page, a join prompt
// that says what is automatic, and the web manifest, its icons and the offline page that
// the service worker shows when a page cannot be loaded.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, apiCreate, apiJoin, adoptSeat, PHONE, DESKTOP } = H;

  /** Starts a table of two named players; returns both pages (phones) and the table. */
  async function startedTable(names = ['Somchai', 'Dara']) {
    const r = await apiCreate({ name: names[0] });
    const j = await apiJoin(r.code, names[1]);
    const a = await newPage(PHONE, 'en-US');
    const b = await newPage(PHONE, 'en-US');
    await adoptSeat(a, r.code, r.token, 0, names[0]);
    await adoptSeat(b, r.code, j.token, 1, names[1]);
    for (const p of [a, b]) await p.goto(`${H.BASE}/p/${r.code}`);
    await a.click(tid('start'));
    await until('the game on both', async () => (await state(a))?.v === 0 && (await state(b))?.v === 0);
    return { r, a, b };
  }

  /** A spectator's page on the table's game screen. */
  async function spectator(code, opts, locale = 'en-US') {
    const p = await newPage(opts, locale);
    await p.goto(`${H.BASE}/p/${code}`);
    await p.click(tid('watch'));
    await p.waitForSelector(tid('game'));
    await until('the spectator sees the game', async () => (await state(p))?.v === 0);
    return p;
  }

  /** The status card's boxes: the card, its two lines, and the gap to the next thing shown under it. */
  async function statusBoxes(page) {
    return page.evaluate(() => {
      const box = (el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: r.height, display: getComputedStyle(el).display };
      };
      const st = document.querySelector('[data-testid="status"]');
      const out = { card: box(st), main: box(st.querySelector('[data-testid="status-main"]')), sub: box(st.querySelector('[data-testid="status-sub"]')) };
      out.subText = st.querySelector('[data-testid="status-sub"]').textContent;
      // the next sibling that shows something (text or a control): whatever lies between is empty space
      let next = st.nextElementSibling;
      while (next) {
        const r = next.getBoundingClientRect();
        if (r.height > 0 && (next.textContent.trim() || next.querySelector('button, a, input, select, img, svg'))) break;
        next = next.nextElementSibling;
      }
      out.next = next ? { cls: next.className, top: next.getBoundingClientRect().top } : null;
      out.gap = next ? next.getBoundingClientRect().top - out.card.bottom : null;
      return out;
    });
  }

  test('screens: a spectator has no empty row under the status card; a status without a second line shows no blank line', async () => {
    const { r, a, b } = await startedTable();
    const watchers = [await spectator(r.code, PHONE), await spectator(r.code, DESKTOP)];
    for (const [i, w] of watchers.entries()) {
      const s = await statusBoxes(w);
      assert(/watching/i.test(s.subText), `the spectator's second line says so (${s.subText})`);
      assert(s.next && s.gap <= 16, `${i ? 'desktop' : 'phone'}: the next thing shown follows the status card (${s.next?.cls} ${Math.round(s.gap)} px below)`);
      assert((await w.locator(tid('actions')).boundingBox()) === null, 'no empty button row');
    }
    await shot(watchers[0], 'screens-spectator-360-en');
    await shot(watchers[1], 'screens-spectator-1280-en');

    // The players have no second line while the game runs: none is shown, the main line
    // sits in the middle of the card, and the card is as tall as the spectator's two-line one.
    const spect = await statusBoxes(watchers[0]);
    for (const p of [a, b]) {
      const s = await statusBoxes(p);
      assert(s.subText === '', `no second line for a player (${s.subText})`);
      assert(s.sub.display === 'none' || s.sub.height === 0, `the empty second line takes no room (${s.sub.display}, ${s.sub.height} px)`);
      const above = s.main.top - s.card.top;
      const below = s.card.bottom - s.main.bottom;
      assert(Math.abs(above - below) <= 2, `the one line is in the middle of the card (${above.toFixed(1)} px above, ${below.toFixed(1)} px below)`);
      assert(Math.abs(s.card.height - spect.card.height) <= 1, `the card keeps its height with one line or two (${s.card.height} vs ${spect.card.height})`);
    }
    await shot(a, 'screens-status-360-en');
    // In Khmer (taller lines) the same holds.
    await a.click('[data-lang="km"]');
    await until('Khmer on the game screen', async () => (await a.evaluate(() => document.documentElement.lang)) === 'km');
    const km = await statusBoxes(a);
    assert(Math.abs(km.main.top - km.card.top - (km.card.bottom - km.main.bottom)) <= 2, 'Khmer: the one line is in the middle');
    await shot(a, 'screens-status-360-km');
    for (const p of [a, b, ...watchers]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    for (const p of [a, b, ...watchers]) await p.context().close();
  });

  test('screens: in the phone player bars the online dot sits right after the name, long names included', async () => {
    const { r, a, b } = await startedTable(['Somchai', 'Daravuth Sokhapheap Chan']);
    // the host's seat in a desktop window too
    const desk = await newPage(DESKTOP, 'en-US');
    await adoptSeat(desk, r.code, r.token, 0, 'Somchai');
    await desk.goto(`${H.BASE}/p/${r.code}`);
    await desk.waitForSelector(tid('game'));
    for (const p of [a, b, desk]) {
      await until('both dots say online', async () => (await p.locator(`${tid('presence')}[data-presence="on"]`).count()) === 2);
      const bars = await p.evaluate(() =>
        ['bar-top', 'bar-bottom'].map((id) => {
          const bar = document.querySelector(`[data-testid="${id}"]`);
          const r = (el) => el.getBoundingClientRect().toJSON();
          const name = bar.querySelector('.pname');
          return {
            id,
            bar: r(bar),
            name: r(name),
            dot: r(bar.querySelector('[data-testid="presence"]')),
            count: r(bar.querySelector('.count')),
          };
        }),
      );
      for (const x of bars) {
        const after = x.dot.left - x.name.right;
        assert(after >= 0 && after <= 12, `${x.id}: the dot follows the name (${after.toFixed(1)} px after it)`);
        const dy = x.dot.top + x.dot.height / 2 - (x.name.top + x.name.height / 2);
        assert(Math.abs(dy) <= 3, `${x.id}: the dot is level with the name (${dy.toFixed(1)} px)`);
        assert(x.dot.right <= x.count.left && x.dot.right <= x.bar.right, `${x.id}: the dot stays clear of the count and inside the bar`);
      }
    }
    await shot(a, 'screens-bars-360-en');
    await shot(b, 'screens-bars-360-en-long-name');
    await shot(desk, 'screens-bars-1280-en');
    for (const p of [a, b, desk]) await p.context().close();
  });

  test("screens: the home page's promoted pawn (Bia Ngai) is drawn in the set's own style: its colours, no dashes, the shared baseline", async () => {
    for (const [opts, size] of [[PHONE, 360], [DESKTOP, 1280]]) {
      const page = await newPage(opts, 'en-US');
      await page.goto(`${H.BASE}/`);
      await page.waitForSelector(tid('home'));
      const icons = await page.evaluate(async () => {
        const out = [];
        for (const img of document.querySelectorAll('.hero-pieces img')) {
          await img.decode();
          const svg = decodeURIComponent(img.src.slice(img.src.indexOf(',') + 1));
          // the lowest row the drawing covers, in hundredths of its box
          const c = document.createElement('canvas');
          c.width = c.height = 100;
          const g = c.getContext('2d');
          g.drawImage(img, 0, 0, 100, 100);
          const px = g.getImageData(0, 0, 100, 100).data;
          let low = 0;
          let ink = 0;
          for (let i = 0; i < 100 * 100; i++) {
            if (px[i * 4 + 3] > 128) {
              low = Math.max(low, Math.floor(i / 100));
              ink++;
            }
          }
          out.push({ svg, low, ink, colours: [...new Set([...svg.matchAll(/(?:fill|stroke)="(#[0-9a-fA-F]{3,8})"/g)].map((m) => m[1].toLowerCase()))] });
        }
        return out;
      });
      assert(icons.length === 7, `seven pieces (${icons.length})`);
      const pm = icons[6];
      // the row alternates sides: White at 0, 2, 4, 6
      const white = new Set(icons.filter((_, i) => i % 2 === 0 && i < 6).flatMap((x) => x.colours));
      const foreign = pm.colours.filter((c) => !white.has(c));
      assert(foreign.length === 0, `only the set's colours (foreign: ${foreign.join(' ')})`);
      assert(!/dasharray/.test(pm.svg), 'no dashed outline');
      const lows = icons.map((x) => x.low);
      assert(Math.abs(pm.low - Math.max(...lows.slice(0, 6))) <= 3, `it stands on the same baseline (${lows.join(' ')})`);
      const bia = icons[5];
      assert(pm.ink > bia.ink * 0.8 && pm.ink < bia.ink * 1.6, `as weighty as the Bia (${pm.ink} vs ${bia.ink} pixels)`);
      await shot(page, `screens-home-${size}-en`);
      await page.locator('.hero-pieces').screenshot({ path: `${H.ART}/screens-hero-pieces-${size}.png` });
      await page.context().close();
    }
  });

  test('screens: the join prompt says what is automatic: "How a count starts: …" in en, th and km', async () => {
    const auto = await apiCreate({ name: 'Somchai' });
    const declare = await apiCreate({ name: 'Somchai', counting: 'declare' });
    const want = {
      en: ['How a count starts: Automatic', 'How a count starts: Declared by the player'],
      th: ['วิธีเริ่มนับ: อัตโนมัติ', 'วิธีเริ่มนับ: ผู้เล่นประกาศนับเอง'],
      km: ['របៀបចាប់ផ្តើមរាប់: ស្វ័យប្រវត្តិ', 'របៀបចាប់ផ្តើមរាប់: អ្នកលេងប្រកាសខ្លួនឯង'],
    };
    const page = await newPage(PHONE, 'en-US');
    for (const [lang, [a, d]] of Object.entries(want)) {
      for (const [code, w] of [[auto.code, a], [declare.code, d]]) {
        await page.goto(`${H.BASE}/p/${code}`);
        await page.waitForSelector(tid('join'));
        if ((await page.evaluate(() => document.documentElement.lang)) !== lang) await page.click(`[data-lang="${lang}"]`);
        await until(`the prompt in ${lang}`, async () => (await text(page, tid('prompt-rules'))).includes(w));
        const all = await text(page, tid('prompt-rules'));
        // no bare "Automatic" / "อัตโนมัติ" / "ស្វ័យប្រវត្តិ" without its subject
        assert(all.split(' · ').every((bit) => !/^(Automatic|อัตโนมัติ|ស្វ័យប្រវត្តិ)$/.test(bit)), `the rule names what it is (${all})`);
        if (code === auto.code) await shot(page, `screens-join-prompt-360-${lang}`);
      }
    }
    assert(page.consoleErrors.length === 0, `no console errors (${page.consoleErrors.join(' | ')})`);
    await page.context().close();
  });

  test('screens: installable: the manifest is linked, parses, has the header colours, and its PNG icons load at their sizes', async () => {
    const page = await newPage(DESKTOP, 'en-US');
    await page.goto(`${H.BASE}/`);
    await page.waitForSelector(tid('home'));
    const head = await page.evaluate(() => ({
      manifest: document.querySelector('link[rel="manifest"]')?.getAttribute('href') ?? null,
      theme: document.querySelector('meta[name="theme-color"]')?.getAttribute('content') ?? null,
      header: getComputedStyle(document.querySelector('.topbar')).backgroundColor,
    }));
    assert(head.manifest, 'a <link rel="manifest">');
    const res = await fetch(new URL(head.manifest, H.BASE));
    assert(res.status === 200, `the manifest is served (${res.status})`);
    assert(/^application\/(manifest\+)?json/.test(res.headers.get('content-type') ?? ''), `as JSON (${res.headers.get('content-type')})`);
    const m = JSON.parse(await res.text());
    assert(m.name && m.short_name && m.short_name.length <= 12, `name and a short name (${m.name} / ${m.short_name})`);
    assert(m.start_url === '/' && m.display === 'standalone', `start_url / and standalone (${m.start_url}, ${m.display})`);
    const rgb = (hex) => {
      const n = parseInt(hex.slice(1), 16);
      return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
    };
    assert(rgb(m.theme_color) === head.header && rgb(head.theme) === head.header, `theme colour = the header's (${m.theme_color}, meta ${head.theme}, header ${head.header})`);
    assert(rgb(m.background_color) === head.header, `background colour = the header's (${m.background_color})`);
    const sized = (n) => m.icons.filter((i) => i.sizes.split(' ').includes(`${n}x${n}`) && i.type === 'image/png');
    assert(sized(192).length >= 1 && sized(512).length >= 1, 'PNG icons at 192 and 512 px');
    assert(m.icons.some((i) => (i.purpose ?? '').split(' ').includes('maskable')), 'a maskable icon');
    for (const icon of m.icons) {
      const url = new URL(icon.src, res.url).href;
      const r = await fetch(url);
      const bytes = Buffer.from(await r.arrayBuffer());
      assert(r.status === 200 && r.headers.get('content-type') === icon.type, `${icon.src}: served as ${icon.type} (${r.status} ${r.headers.get('content-type')})`);
      assert(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${icon.src}: a PNG`);
      const [w, h] = icon.sizes.split('x').map(Number);
      // its size as the PNG says and as the browser decodes it
      assert(bytes.readUInt32BE(16) === w && bytes.readUInt32BE(20) === h, `${icon.src}: ${icon.sizes} in its header`);
      const seen = await page.evaluate(async (u) => {
        const img = new Image();
        img.src = u;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.naturalWidth;
        c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const at = (x, y) => Array.from(g.getImageData(x, y, 1, 1).data);
        return { w: img.naturalWidth, h: img.naturalHeight, corner: at(0, 0), centre: at(c.width >> 1, c.height >> 1) };
      }, url);
      assert(seen.w === w && seen.h === h, `${icon.src}: decodes at ${icon.sizes} (${seen.w}x${seen.h})`);
      if ((icon.purpose ?? '').includes('maskable')) assert(seen.corner[3] === 255, `${icon.src}: a maskable icon fills its corners (${seen.corner})`);
    }
    // Chromium's own reading of the manifest: no errors
    const cdp = await page.context().newCDPSession(page);
    const am = await cdp.send('Page.getAppManifest');
    assert(am.url.endsWith('/manifest.webmanifest') && (am.errors ?? []).length === 0, `Chromium reads the manifest without errors (${JSON.stringify(am.errors)})`);
    const apple = await page.evaluate(() => document.querySelector('link[rel="apple-touch-icon"]')?.getAttribute('href'));
    if (apple) assert((await fetch(new URL(apple, H.BASE))).headers.get('content-type') === 'image/png', 'the touch icon is a PNG');
    assert(page.consoleErrors.length === 0, `no console errors (${page.consoleErrors.join(' | ')})`);
    await page.context().close();
  });

  test('screens: offline: a table opened without a network shows the offline page in three languages; online pages always come from the server', async () => {
    for (const [opts, size] of [[PHONE, 360], [DESKTOP, 1280]]) {
      const page = await newPage(opts, 'en-US');
      const ctx = page.context();
      await page.goto(`${H.BASE}/`);
      await page.waitForSelector(tid('home'));
      // the worker is active, with the build's files (precache.json lists them: the app and the
      // offline page) and nothing else cached at its install
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      const cached = async () =>
        page.evaluate(async () => {
          const out = [];
          for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) out.push(new URL(req.url).pathname);
          return out;
        });
      const build = (await (await fetch(`${H.BASE}/precache.json`)).json()).files;
      assert(build.includes('/offline.html') && build.includes('/index.html'), `the build's list (${build})`);
      // (of the module's two builds, the one this browser loads: Chromium has WebAssembly SIMD)
      const kept = build.filter((f) => f !== '/core/makruk.wasm');
      assert(kept.includes('/core/makruk-simd.wasm') && kept.length === build.length - 1, `both builds listed (${build})`);
      await until('the build cached', async () => JSON.stringify((await cached()).sort()) === JSON.stringify([...kept].sort()));

      // Online, a page comes from the server every time: a table's answer changes between visits.
      const r = await apiCreate({ name: 'Somchai' });
      const players = async () => {
        const res = await page.goto(`${H.BASE}/api/parties/${r.code}`);
        return JSON.parse(await res.text()).party.players.length;
      };
      assert((await players()) === 1, 'one player');
      await apiJoin(r.code, 'Dara');
      assert((await players()) === 2, 'two players on the next visit, not an old copy');
      await page.goto(`${H.BASE}/p/${r.code}`);
      await page.waitForSelector(tid('join-prompt'));
      assert((await page.locator(tid('offline-page')).count()) === 0, 'online: the app, not the offline page');
      assert(JSON.stringify((await cached()).sort()) === JSON.stringify([...kept].sort()), 'still nothing else cached');

      // Offline: a navigation gets the offline page, in English, Thai and Khmer, with no script.
      await ctx.setOffline(true);
      await page.goto(`${H.BASE}/p/${r.code}`).catch(() => null);
      await page.waitForSelector(tid('offline-page'));
      assert(page.url() === `${H.BASE}/p/${r.code}`, `the address stays the one asked for (${page.url()})`);
      const langs = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('section[lang]')].map((s) => [s.lang, s.innerText])));
      assert(/offline/i.test(langs.en ?? '') && /connection/.test(langs.en) && /reconnect/.test(langs.en), `English (${langs.en})`);
      assert(/การเชื่อมต่อ/.test(langs.th ?? '') && /เซิร์ฟเวอร์/.test(langs.th), `Thai (${langs.th})`);
      assert(/តភ្ជាប់/.test(langs.km ?? ''), `Khmer (${langs.km})`);
      assert((await page.locator('script').count()) === 0, 'no script at all');
      assert((await page.locator(tid('offline-retry')).isVisible()), 'a way to try again');
      await shot(page, `screens-offline-${size}`);
      // The API gets no answer from a cache (only the app's own files do).
      const sub = await page.evaluate(() => fetch(`/api/parties/${location.pathname.slice(3)}`).then((x) => `answered ${x.status}`, () => 'failed'));
      assert(sub === 'failed', `a request to the API while offline is not answered from a cache (${sub})`);

      // Back online: the page reloads itself (no script: a timed refresh) and the app is back.
      await ctx.setOffline(false);
      await until('the app back by itself', async () => (await page.locator(tid('join-prompt')).count()) === 1 || (await page.locator(tid('table-full')).count()) === 1, 15000);
      assert(page.consoleErrors.every((e) => /ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(e)), `no other console errors (${page.consoleErrors.join(' | ')})`);
      await ctx.close();
    }
  });
}
