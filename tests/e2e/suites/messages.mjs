// Messages of the server and the rules core, worded by the client in the reader's
// language: every id `makruk messages` lists renders in Thai, English and Khmer with each
// parameter filled in; and real refusals read in the page's language (a quick message
// sent too soon, an illegal move in an imported game, a set-up without a White king).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function (H) {
  const { test, assert, until, newPage, tid, text, kmNum, shot, PHONE, DESKTOP } = H;
  const LANGS = ['th', 'en', 'km'];
  // An unfilled placeholder: {name} or {name|key:words|…}.
  const PLACEHOLDER = /\{\w+(\|[^{}]*)?\}/;

  test('messages: every id renders in th, en and km with its parameters filled in; the English is the server\'s', async () => {
    const bin = process.env.MAKRUK_BINARY || process.env.MAKRUK_BIN || path.join(H.ROOT, 'build', 'makruk');
    const list = JSON.parse(execFileSync(bin, ['messages'], { encoding: 'utf8' }));
    assert(list.length > 100, `the catalogue (${list.length} ids)`);
    const p = await newPage(DESKTOP, 'en-US');
    await p.goto(`${H.BASE}/`);
    await until('the renderer', async () => p.evaluate(() => !!window.__makrukMessages));
    const clientIds = await p.evaluate(() => window.__makrukMessages.ids());
    const serverIds = list.map((m) => m.id);
    const missing = serverIds.filter((id) => !clientIds.includes(id));
    const extra = clientIds.filter((id) => !serverIds.includes(id));
    assert(missing.length === 0 && extra.length === 0, `the client words every id and no other (missing ${missing}, extra ${extra})`);

    // The cases: for each id, sample values; a choice takes each of its values in turn.
    const nested = { msg: 'move.illegal', args: { move: 'Qz9' }, error: "illegal move 'Qz9'" };
    const cases = [];
    for (const m of list) {
      const turns = Math.max(1, ...m.params.map((q) => (q.kind === 'choice' ? q.choices.length : 1)));
      for (let i = 0; i < turns; i++) {
        const args = {};
        for (const q of m.params) {
          if (q.kind === 'number') args[q.name] = 37;
          else if (q.kind === 'choice') args[q.name] = q.choices[i % q.choices.length];
          else if (q.kind === 'message') args[q.name] = nested;
          else args[q.name] = `X${q.name}7`;
        }
        cases.push({ id: m.id, english: m.english, params: m.params, args });
      }
    }
    const rendered = await p.evaluate(
      ({ cases, langs }) =>
        cases.map((c) => ({
          templates: Object.fromEntries(langs.map((l) => [l, window.__makrukMessages.template(l, c.id)])),
          texts: Object.fromEntries(langs.map((l) => [l, window.__makrukMessages.render(l, c.id, c.args, 'ENGLISH')])),
        })),
      { cases, langs: LANGS },
    );
    const problems = [];
    const byId = new Map();
    cases.forEach((c, i) => {
      const { templates, texts } = rendered[i];
      if (templates.en !== c.english) problems.push(`${c.id}: the client's English differs from the server's`);
      for (const l of LANGS) {
        const s = texts[l];
        const where = `${c.id} [${l}] "${s}"`;
        if (!s || !s.trim()) problems.push(`${where}: empty`);
        if (s.includes('ENGLISH')) problems.push(`${where}: fell back to the English`);
        if (PLACEHOLDER.test(s)) problems.push(`${where}: a placeholder is left`);
        for (const q of c.params) {
          if (q.kind === 'text' && !s.includes(c.args[q.name])) problems.push(`${where}: ${q.name} missing`);
          if (q.kind === 'number' && !s.includes(l === 'km' ? kmNum(37) : '37')) problems.push(`${where}: ${q.name} missing`);
          if (q.kind === 'number' && l === 'km' && s.includes('37')) problems.push(`${where}: ${q.name} not in Khmer digits`);
          if (q.kind === 'message' && !s.includes('Qz9')) problems.push(`${where}: the reason is missing`);
        }
        if (l !== 'en' && s === texts.en) problems.push(`${where}: the same as the English`);
      }
      byId.set(c.id, [...(byId.get(c.id) ?? []), texts]);
    });
    // Each choice has words of its own, in every language.
    for (const [id, all] of byId)
      for (const l of LANGS)
        if (all.length > 1 && new Set(all.map((x) => x[l])).size < 2) problems.push(`${id} [${l}]: the choices read alike`);
    // An id this page does not know: a sentence in the reader's language, with the English.
    const fallback = await p.evaluate(() => ['th', 'en', 'km'].map((l) => window.__makrukMessages.render(l, 'no.such-id', {}, 'plain English')));
    if (!fallback.every((s) => s.includes('plain English')) || new Set(fallback).size !== 3) problems.push(`unknown id: ${fallback.join(' | ')}`);
    assert(problems.length === 0, `${problems.length} problems:\n  ${problems.slice(0, 40).join('\n  ')}`);
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await p.context().close();
  });

  test('messages: in Thai, the toast for a quick message sent too soon is Thai', async () => {
    const { a, b } = await H.startedTable(DESKTOP, 'th-TH', PHONE, 'en-US');
    await a.click(tid('chat-toggle'));
    await a.click(tid('phrase-hello'));
    await a.click(tid('chat-toggle'));
    await a.click(tid('phrase-thanks'));  // within 2 s: refused
    await until('the toast in Thai', async () => (await text(a, '.toast')) === 'ส่งข้อความด่วนได้ทุก ๆ 2 วินาที');
    await shot(a, 'message-quick-too-soon-1280-th');
    for (const x of [a, b]) assert(x.consoleErrors.length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
    await a.context().close();
    await b.context().close();
  });

  test('messages: in Thai, the analysis board\'s import names the illegal move in Thai', async () => {
    const p = await newPage(PHONE, 'th-TH');
    await p.goto(`${H.BASE}/analysis`);
    await p.waitForSelector(tid('import-text'));
    await p.fill(tid('import-text'), '1. e3e4 e6e5 2. Ra5');
    await p.click(tid('import-load'));
    await until('the error', async () => (await text(p, tid('import-error'))) !== '');
    const s = await text(p, tid('import-error'));
    assert(s === 'โหลดไม่ได้: ตาที่ 2 ของฝ่ายขาว (Ra5): เดิน Ra5 ไม่ได้ (ผิดกติกา)', `in Thai, naming the move (${s})`);
    await shot(p, 'message-import-360-th');
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await p.context().close();
  });

  test('messages: in Khmer, a set-up without a White king is refused in Khmer', async () => {
    const p = await newPage(PHONE, 'km-KH');
    await p.goto(`${H.BASE}/analysis`);
    // The board drawn first (as the other set-up tests do): until then the panel may still
    // move under the pointer, and a tap may land beside the button.
    await p.waitForSelector(`${tid('analysis')}[data-fen]`);
    await p.click(tid('analysis-setup'));
    await p.waitForSelector(tid('setup'));
    await p.click(tid('setup-clear'));
    await p.click(tid('setup-pick-bk'));
    await p.click(tid('setup-e8'));
    await p.click(tid('setup-done'));
    await until('refused', async () => (await text(p, tid('setup-error'))) !== '');
    const s = await text(p, tid('setup-error'));
    assert(s === 'ទីតាំងនេះមិនអាចកើតមានក្នុងល្បែងទេ៖ FEN ក្តារ៖ ខាងស ត្រូវមានស្តេចតែមួយគត់', `in Khmer (${s})`);
    await shot(p, 'message-setup-360-km');
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await p.context().close();
  });
}
