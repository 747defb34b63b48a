import { api, lastName, saveName, saveSeat, type Counting, type Variant } from '../api';
import { h } from '../dom';
import { t } from '../i18n';
import { errorText, link, navigate, type Screen } from '../ui';

function seg<T extends string | number>(
  label: string,
  options: { value: T; text: string }[],
  get: () => T,
  set: (v: T) => void,
  testid: string,
): HTMLElement {
  const buttons = options.map((o) =>
    h(
      'button',
      { type: 'button', 'data-value': String(o.value), 'aria-pressed': String(o.value === get()) },
      o.text,
    ),
  );
  buttons.forEach((b, i) =>
    b.addEventListener('click', () => {
      set(options[i].value);
      buttons.forEach((x, j) => x.setAttribute('aria-pressed', String(j === i)));
    }),
  );
  const id = `lbl-${testid}`;
  return h(
    'div',
    { class: 'field' },
    h('div', { class: 'label', id }, label),
    h('div', { class: testid === 'cpu-level' ? 'seg levels' : 'seg', role: 'group', 'aria-labelledby': id, 'data-testid': testid }, buttons),
  );
}

function toggle(label: string, get: () => boolean, set: (v: boolean) => void, testid: string): HTMLElement {
  const input = h('input', { type: 'checkbox', role: 'switch', checked: get(), 'data-testid': testid });
  input.addEventListener('change', () => set(input.checked));
  return h('label', { class: 'toggle' }, h('span', null, label), input);
}

const defaults = {
  variant: 'makruk' as Variant,
  counting: 'auto' as Counting,
  showLegal: true,
  swapColors: true,
  labels: true,
  cpu: 3,
};

export function newTableScreen(practice: boolean): Screen {
  const o = { ...defaults };
  const nameInput = h('input', {
    type: 'text',
    id: 'name',
    maxlength: 24,
    autocomplete: 'nickname',
    placeholder: t('namePlaceholder'),
    value: lastName(),
    'data-testid': 'name',
  });
  const err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
  const create = h(
    'button',
    { type: 'submit', class: 'btn primary block', 'data-testid': 'create' },
    practice ? t('startPractice') : t('create'),
  );

  const form = h(
    'form',
    { novalidate: true },
    h('h1', null, practice ? t('practiceTable') : t('newTable')),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'name' }, t('yourName')),
      nameInput,
    ),
    seg(
      t('variant'),
      [
        { value: 'makruk', text: t('makruk') },
        { value: 'ouk', text: t('ouk') },
      ],
      () => o.variant,
      (v) => (o.variant = v),
      'variant',
    ),
    practice
      ? h(
          'div',
          null,
          seg(
            t('cpuLevel'),
            [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ value: n, text: String(n) })),
            () => o.cpu,
            (v) => (o.cpu = v),
            'cpu-level',
          ),
          h('div', { class: 'hint muted' }, t('cpuLevelHint')),
        )
      : null,
    h('h2', null, t('houseRules')),
    h(
      'div',
      { class: 'card' },
      seg(
        t('countStart'),
        [
          { value: 'auto', text: t('countAuto') },
          { value: 'declare', text: t('countDeclare') },
        ],
        () => o.counting,
        (v) => (o.counting = v),
        'counting',
      ),
      toggle(t('showLegal'), () => o.showLegal, (v) => (o.showLegal = v), 'showLegal'),
      toggle(t('swapColors'), () => o.swapColors, (v) => (o.swapColors = v), 'swapColors'),
      toggle(t('labels'), () => o.labels, (v) => (o.labels = v), 'labels'),
    ),
    err,
    create,
    h('p', null, link('/', { class: 'btn quiet', 'data-testid': 'back' }, t('back'))),
  );

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = nameInput.value.trim();
    if (!name) {
      err.textContent = t('needName');
      nameInput.focus();
      return;
    }
    err.textContent = '';
    create.disabled = true;
    try {
      const r = await api.create({
        name,
        variant: o.variant,
        counting: o.counting,
        showLegal: o.showLegal,
        swapColors: o.swapColors,
        labels: o.labels,
        cpu: practice ? o.cpu : null,
      });
      saveName(name);
      saveSeat(r.code, { token: r.token, seat: r.seat, name });
      navigate(`/p/${r.code}`);
    } catch (ex) {
      err.textContent = errorText(ex);
      create.disabled = false;
    }
  });
  return { el: form };
}
