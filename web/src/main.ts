import 'chessgroundx/assets/chessground.base.css';
import './style.css';
import { h, replace } from './shared/dom';
import { LANGS, lang, onLangChange, setLang, t } from './shared/i18n';
import { installPieceCss, pieceSvg } from './shared/pieces';
import { isMuted, setMuted, unlockAudio } from './shared/sound';
import { homeScreen } from './home/home';
import { newTableScreen } from './party/newtable';
import { joinScreen } from './party/join';
import { findScreen } from './lobby/find';
import { lobby } from './lobby/lobby';
import { PartyScreen } from './party/party';
import { GamePageScreen } from './analysis/gamepage';
import { AnalysisScreen } from './analysis/analysis';
import { LocalGameScreen } from './practice/local';
import { CODE_RE, normaliseCode } from './shared/api';
import { connBanner, focusHeading, focusLost, setNavigator, type Screen } from './shared/ui';
import { registerServiceWorker } from './turns/push';
import { learnRoute } from './learn/route';
import { feedbackRoute } from './community/route';
import { tournamentRoute } from './tournament/route';


const root = document.getElementById('app')!;
let current: Screen | null = null;
let currentPath = '';

function navigate(path: string, replaceState = false): void {
  if (path !== location.pathname + location.search) {
    if (replaceState) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  route(true);
}

function screenFor(path: string, search: URLSearchParams): Screen {
  const m = /^\/p\/([A-Za-z0-9]+)\/?$/.exec(path);
  if (m) {
    const code = normaliseCode(m[1]);
    if (CODE_RE.test(code)) return new PartyScreen(code);
  }
  const game = /^\/g\/([0-9a-f]{12})\/?$/.exec(path);
  if (game) return new GamePageScreen(game[1]);
  const local = /^\/local\/([0-9a-f]{12})\/?$/.exec(path);
  if (local) return new LocalGameScreen(local[1]);
  const learn = learnRoute(path);
  if (learn) return learn;
  const feedback = feedbackRoute(path, search);
  if (feedback) return feedback;
  const tournament = tournamentRoute(path);
  if (tournament) return tournament;
  switch (path) {
    case '/new':
      return newTableScreen(false);
    case '/practice':
      return newTableScreen(true);
    case '/join':
      return joinScreen(search.get('code') ?? '');
    case '/find':
      return findScreen();
    case '/analysis':
      return new AnalysisScreen(search);
    default:
      return homeScreen();
  }
}

/** Shows the screen for the address; `moved`: after a navigation in the page, when the
 * focus goes to the new screen's heading (the element that had it has gone). */
function route(moved = false): void {
  const path = location.pathname;
  const same = path === currentPath && current;
  if (same) return;
  current?.destroy?.();
  currentPath = path;
  current = screenFor(path, new URLSearchParams(location.search));
  const main = h('main', { class: current.wide ? 'wide' : '' }, current.el);
  replace(root, topBar(), connBanner, main);
  window.scrollTo(0, 0);
  if (moved && focusLost()) focusHeading(main, main);
}


const SPEAKER_ON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12"/></svg>';
const SPEAKER_OFF =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M17 9l5 6M22 9l-5 6"/></svg>';

function topBar(): HTMLElement {
  const logo = h('img', {
    src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg('k', 'white'))}`,
    alt: '',
  });
  const brand = h('a', { class: 'brand', href: '/', 'data-testid': 'home-link' }, logo, h('span', null, t('appName')));
  brand.addEventListener('click', (e) => {
    e.preventDefault();
    navigate('/');
  });
  const langs = h(
    'div',
    { class: 'langs', role: 'group', 'aria-label': t('language') },
    LANGS.map((l) =>
      h(
        'button',
        {
          type: 'button',
          lang: l.id,
          'aria-pressed': String(l.id === lang()),
          'data-lang': l.id,
          onclick: () => setLang(l.id),
        },
        l.label,
      ),
    ),
  );
  const mute = h('button', {
    type: 'button',
    class: 'icon-btn',
    'data-testid': 'mute',
    'aria-pressed': String(isMuted()),
    'aria-label': isMuted() ? t('soundOff') : t('soundOn'),
    title: isMuted() ? t('soundOff') : t('soundOn'),
  });
  // Static icon markup (no user data).
  mute.innerHTML = isMuted() ? SPEAKER_OFF : SPEAKER_ON;
  mute.addEventListener('click', () => {
    setMuted(!isMuted());
    mute.innerHTML = isMuted() ? SPEAKER_OFF : SPEAKER_ON;
    mute.setAttribute('aria-pressed', String(isMuted()));
    mute.setAttribute('aria-label', isMuted() ? t('soundOff') : t('soundOn'));
    mute.title = isMuted() ? t('soundOff') : t('soundOn');
  });
  return h('header', { class: 'topbar' }, brand, langs, mute);
}

onLangChange(() => {
  document.title = t('appName');
  if (current?.relabel) {
    current.relabel();
    const main = root.querySelector('main')!;
    replace(root, topBar(), connBanner, main);
  } else {
    currentPath = '';
    route();
  }
});

// An opponent found while the player is elsewhere (practising against the CPU, say):
// a notice that stays until they go to the game or dismiss it.
let foundNotice: HTMLElement | null = null;
lobby.subscribe((s) => {
  foundNotice?.remove();
  foundNotice = null;
  if (s.kind === 'missed') {
    // The found opponent waited at the table in vain: the table is gone.
    const ok = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'missed-ok' }, t('ok'));
    ok.addEventListener('click', () => lobby.done());
    foundNotice = h(
      'div',
      { class: 'found-notice', role: 'alert', 'data-testid': 'pairing-missed' },
      h('p', null, t('pairingMissed', { name: s.opponent })),
      h('div', { class: 'row' }, ok),
    );
    document.body.append(foundNotice);
    return;
  }
  if (s.kind !== 'paired' || location.pathname === '/find') return;
  const code = s.paired.code;
  const go = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'found-go' }, t('goToGame'));
  const later = h('button', { type: 'button', class: 'btn quiet', 'data-testid': 'found-later' }, t('dismiss'));
  go.addEventListener('click', () => {
    lobby.done();
    navigate(`/p/${code}`);
  });
  // Not now: the opponent is told at once and may look for someone else.
  later.addEventListener('click', () => lobby.decline());
  foundNotice = h(
    'div',
    { class: 'found-notice', role: 'alert', 'data-testid': 'opponent-found' },
    h('p', null, t('opponentFound', { name: s.paired.opponent })),
    h('div', { class: 'row' }, go, later),
  );
  document.body.append(foundNotice);
});

setNavigator(navigate);
window.addEventListener('popstate', () => route(true));
document.addEventListener('pointerdown', unlockAudio, { capture: true });
document.addEventListener('keydown', unlockAudio, { capture: true });

document.documentElement.lang = lang();
document.title = t('appName');
installPieceCss();
route();
// The service worker shows turn-based tables' push notifications. Registering asks for
// nothing; permission is only ever asked for from a button (see game/game.ts).
if (document.readyState === 'complete') registerServiceWorker();
else window.addEventListener('load', () => registerServiceWorker(), { once: true });
