import { api, saveName, saveSeat, type Counting, type TableMode, type Variant } from '../shared/api';
import { h } from '../shared/dom';
import { nameField } from '../shared/namefield';
import { t } from '../shared/i18n';
import { fromLocalInput, toLocalInput, zoneName } from '../shared/time';
import { clockRule, clockSeg, countingSeg, variantSeg } from '../shared/choices';
import { errorText, link, navigate, seg, type Screen } from '../shared/ui';
import { newLocalGame, unreachable } from '../practice/games';
import { localGamesList } from '../practice/local';

function toggle(label: string, get: () => boolean, set: (v: boolean) => void, testid: string): HTMLElement {
  const input = h('input', { type: 'checkbox', role: 'switch', checked: get(), 'data-testid': testid });
  input.addEventListener('change', () => set(input.checked));
  return h('label', { class: 'toggle' }, h('span', null, label), input);
}

function withHint(field: HTMLElement, hint: HTMLElement): HTMLElement {
  field.append(hint);
  return field;
}

const defaults = {
  variant: 'makruk' as Variant,
  counting: 'auto' as Counting,
  showLegal: true,
  swapColors: true,
  labels: true,
  cpu: 3,
  mode: 'live' as TableMode,
  clock: 'none',
};


const YEAR_MS = 365 * 24 * 3600 * 1000;

/** The default start: the next full hour at least 30 minutes away. */
function defaultStart(now = Date.now()): number {
  const d = new Date(now + 30 * 60 * 1000);
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return d.getTime();
}

/** Checks a start time: null when fine, else the message to show. */
export function startTimeProblem(ms: number, now = Date.now()): string | null {
  if (!Number.isFinite(ms)) return t('timeNeeded');
  if (ms <= now) return t('timePast');
  if (ms > now + YEAR_MS) return t('timeTooFar');
  return null;
}

export function newTableScreen(practice: boolean): Screen {
  const o = { ...defaults };
  const who = nameField();
  const err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });

  // ---- live or turn-based, and "Pick a time" (tables with friends only) ----
  const modeHint = h('div', { class: 'hint', 'data-testid': 'mode-hint', 'aria-live': 'polite' });
  const showModeHint = () => (modeHint.textContent = o.mode === 'turn' ? t('modeTurnHint') : t('modeLiveHint'));
  showModeHint();
  let pickTime = false;
  const timeInput = h('input', {
    type: 'datetime-local',
    id: 'starts-at',
    step: 60,
    value: toLocalInput(defaultStart()),
    min: toLocalInput(Date.now()),
    max: toLocalInput(Date.now() + YEAR_MS),
    'data-testid': 'starts-at',
    'aria-describedby': 'starts-at-hint',
  });
  const timeErr = h('div', { class: 'error', role: 'alert', 'data-testid': 'starts-at-error' });
  const timeField = h(
    'div',
    { class: 'field time-field', hidden: true },
    h('label', { for: 'starts-at' }, t('startTimeLabel')),
    timeInput,
    h('div', { class: 'hint', id: 'starts-at-hint' }, t('yourTimeZone', { zone: zoneName() }), ' · ', t('pickTimeHint')),
    timeErr,
  );
  const checkTime = (): number | null => {
    const ms = fromLocalInput(timeInput.value);
    const problem = startTimeProblem(ms);
    timeErr.textContent = problem ?? '';
    timeInput.setAttribute('aria-invalid', String(!!problem));
    return problem ? null : ms;
  };
  const recheck = () => {
    const had = err.textContent !== '' && err.textContent === timeErr.textContent;
    checkTime();
    if (had) err.textContent = timeErr.textContent ?? '';
  };
  timeInput.addEventListener('change', recheck);
  timeInput.addEventListener('input', recheck);
  // (live tables with friends only)
  const clockField = withHint(
    clockSeg(
      () => o.clock,
      (v) => (o.clock = v),
    ),
    h('div', { class: 'hint' }, t('clockHint')),
  );
  const friendsOnly = practice
    ? null
    : h(
        'div',
        null,
        withHint(
          seg(
            t('tableMode'),
            [
              { value: 'live', text: t('modeLive') },
              { value: 'turn', text: t('modeTurn') },
            ],
            () => o.mode,
            (v) => {
              o.mode = v;
              showModeHint();
              clockField.hidden = v === 'turn'; // a turn-based table has no clock
            },
            'mode',
          ),
          modeHint,
        ),
        h(
          'div',
          { class: 'card' },
          toggle(
            t('pickTime'),
            () => pickTime,
            (v) => {
              pickTime = v;
              timeField.hidden = !v;
              timeErr.textContent = '';
              if (v) {
                if (!Number.isFinite(fromLocalInput(timeInput.value)) || fromLocalInput(timeInput.value) <= Date.now()) {
                  timeInput.value = toLocalInput(defaultStart());
                }
                timeInput.min = toLocalInput(Date.now());
                timeInput.max = toLocalInput(Date.now() + YEAR_MS);
              }
            },
            'pick-time',
          ),
          timeField,
        ),
      );
  const create = h(
    'button',
    { type: 'submit', class: 'btn primary block', 'data-testid': 'create' },
    practice ? t('startPractice') : t('create'),
  );
  // Practice without a connection: the game is played on this device (practice/local.ts).
  const offlineNote = practice
    ? h('p', { class: 'notice', role: 'status', 'data-testid': 'practice-offline', hidden: navigator.onLine !== false }, t('localOffline'))
    : null;
  const onNetwork = () => {
    if (offlineNote) offlineNote.hidden = navigator.onLine !== false;
  };
  window.addEventListener('online', onNetwork);
  window.addEventListener('offline', onNetwork);
  const playHere = (name: string) => {
    const g = newLocalGame({
      variant: o.variant,
      counting: o.counting,
      level: o.cpu,
      name,
      rules: { counting: o.counting, showLegal: o.showLegal, swapColors: o.swapColors, labels: o.labels },
    });
    saveName(name);
    navigate(`/local/${g.id}`);
  };

  const form = h(
    'form',
    { novalidate: true },
    h('h1', null, practice ? t('practiceTable') : t('newTable')),
    who.field,
    variantSeg(
      () => o.variant,
      (v) => (o.variant = v),
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
      : friendsOnly,
    h('h2', null, t('houseRules')),
    h(
      'div',
      { class: 'card' },
      countingSeg(
        () => o.counting,
        (v) => (o.counting = v),
      ),
      toggle(t('showLegal'), () => o.showLegal, (v) => (o.showLegal = v), 'showLegal'),
      toggle(t('swapColors'), () => o.swapColors, (v) => (o.swapColors = v), 'swapColors'),
      toggle(t('labels'), () => o.labels, (v) => (o.labels = v), 'labels'),
      practice ? null : clockField,
    ),
    err,
    offlineNote,
    create,
    h('p', null, link('/', { class: 'btn quiet', 'data-testid': 'back' }, t('back'))),
    practice ? localGamesList() : null,
  );

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = who.read(err);
    if (!name) return;
    let startsAt: number | undefined;
    if (!practice && pickTime) {
      const ms = checkTime();
      if (ms === null) {
        err.textContent = timeErr.textContent ?? '';
        timeInput.focus();
        return;
      }
      startsAt = ms;
    }
    err.textContent = '';
    if (practice && navigator.onLine === false) return playHere(name);
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
        ...(practice ? {} : { mode: o.mode }),
        ...(practice || o.mode === 'turn' ? {} : { clock: clockRule(o.clock) }),
        ...(startsAt !== undefined ? { startsAt } : {}),
      });
      saveName(name);
      saveSeat(r.code, { token: r.token, seat: r.seat, name });
      navigate(`/p/${r.code}`);
    } catch (ex) {
      if (practice && unreachable(ex)) return playHere(name);
      err.textContent = errorText(ex);
      create.disabled = false;
    }
  });
  return {
    el: form,
    destroy: () => {
      window.removeEventListener('online', onNetwork);
      window.removeEventListener('offline', onNetwork);
    },
  };
}
