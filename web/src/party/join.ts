import { api, ApiError, CODE_RE, normaliseCode, saveName, saveSeat, savedSeat } from '../shared/api';
import { nameField } from '../shared/namefield';
import { lookUpCode } from '../shared/proof';
import { h } from '../shared/dom';
import { t } from '../shared/i18n';
import { errorText, link, navigate, type Screen } from '../shared/ui';
import { tapi } from '../tournament/api';

async function isTournament(code: string): Promise<boolean> {
  try {
    await tapi.get(code);
    return true;
  } catch {
    return false;
  }
}

/** "Join with a code" (a table's or a tournament's): the code and a display name. */
export function joinScreen(initial: string): Screen {
  const codeInput = h('input', {
    type: 'text',
    id: 'code',
    class: 'code-input',
    maxlength: 8,
    autocomplete: 'off',
    autocapitalize: 'characters',
    spellcheck: 'false',
    inputmode: 'text',
    value: normaliseCode(initial),
    'aria-describedby': 'code-hint',
    'data-testid': 'code',
  });
  codeInput.addEventListener('input', () => {
    const v = normaliseCode(codeInput.value).slice(0, 6);
    if (v !== codeInput.value) codeInput.value = v;
  });
  const who = nameField();
  const err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
  const btn = h('button', { type: 'submit', class: 'btn primary block', 'data-testid': 'join' }, t('join'));
  const form = h(
    'form',
    { novalidate: true },
    h('h1', null, t('joinWithCode')),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'code' }, t('codeLabel')),
      codeInput,
      h('div', { class: 'hint', id: 'code-hint' }, t('codeHint')),
    ),
    who.field,
    err,
    btn,
    h('p', null, link('/', { class: 'btn quiet' }, t('back'))),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const code = normaliseCode(codeInput.value);
    if (!CODE_RE.test(code)) {
      err.textContent = t('badCode');
      codeInput.focus();
      return;
    }
    const name = who.read(err);
    if (!name) return;
    err.textContent = '';
    btn.disabled = true;
    try {
      // A browser that already holds a seat at this table keeps it.
      const token = savedSeat(code)?.token || undefined;
      let r;
      try {
        r = await api.join(code, name, token);
      } catch (ex) {
        if (!(ex instanceof ApiError) || ex.status !== 429 || ex.code !== 'rate-limited') throw ex;
        // This network typed many wrong codes just now: the browser proves this
        // one is no guess (a moment's work), and joins with the table's key.
        const party = await lookUpCode(code, undefined, () => (err.textContent = t('checkingCode')));
        err.textContent = '';
        r = await api.join(code, name, token, party.key);
      }
      saveName(name);
      saveSeat(code, { token: r.token, seat: r.seat, name });
      navigate(`/p/${code}`);
    } catch (ex) {
      // The code may be a tournament's: its page has the join form.
      if (ex instanceof ApiError && ex.status === 404 && (await isTournament(code))) {
        saveName(name);
        navigate(`/t/${code}`);
        return;
      }
      if ((ex as { code?: string }).code === 'full') {
        // Both seats are taken: the table's page offers to watch it, with this name.
        saveName(name);
        navigate(`/p/${code}`);
        return;
      }
      err.textContent = errorText(ex);
      btn.disabled = false;
    }
  });
  return { el: form };
}
