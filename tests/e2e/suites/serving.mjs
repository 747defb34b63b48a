// How the server serves the client: compressed copies of the home page and its files.
export default function (H) {
  const { test, assert, text } = H;

  test('the home page goes out compressed: brotli copies of the page, its script and style', async () => {
    let plain = 0;
    let sent = 0;
    const page = await fetch(`${H.BASE}/`, { headers: { 'accept-encoding': 'br' } });
    assert(page.headers.get('content-encoding') === 'br', `index.html in brotli (${page.headers.get('content-encoding')})`);
    const html = await page.text();  // decoded by fetch
    assert(html.includes('<div id="app">'), 'the page decodes');
    const urls = ['/', ...[...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1])];
    for (const u of urls) {
      const raw = await fetch(`${H.BASE}${u}`, { headers: { 'accept-encoding': 'identity' } });
      const br = await fetch(`${H.BASE}${u}`, { headers: { 'accept-encoding': 'br' } });
      plain += Number(raw.headers.get('content-length'));
      sent += Number(br.headers.get('content-length'));
      assert((await raw.text()) === (await br.text()), `${u}: the same text either way`);
      if (/\.(js|css)$/.test(u)) assert(br.headers.get('content-encoding') === 'br', `${u} in brotli`);
    }
    console.log(`     (home page: ${plain} bytes plain, ${sent} in brotli)`);
    assert(sent < plain / 3, 'less than a third of the bytes');
  });
}
