import { h } from '../shared/dom';
import { strings, t } from '../shared/i18n';
import { pieceSvg, type RoleId } from '../shared/pieces';
import { link, type Screen } from '../shared/ui';
import { MyGamesView } from '../turns/mygames';
import { localGamesList } from '../practice/local';
import { recommendationsView } from '../community/recommend';
import { learnLinks } from '../learn/route';
import { feedbackLinks } from '../community/route';
import { tournamentLinks } from '../tournament/route';

function bigButton(href: string, title: string, sub: string, testid: string, primary = false): HTMLElement {
  return link(href, { class: primary ? 'big primary' : 'big', 'data-testid': testid }, h('b', null, title), h('small', null, sub));
}

export function homeScreen(): Screen {
  const s = strings();
  const roles: RoleId[] = ['r', 'n', 's', 'k', 'm', 'p', 'pm'];
  const hero = h(
    'div',
    { class: 'hero-pieces', 'aria-hidden': 'true' },
    roles.map((r, i) =>
      h('img', { src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg(r, i % 2 ? 'black' : 'white'))}`, alt: '' }),
    ),
  );
  const myGames = new MyGamesView();
  const el = h(
    'div',
    { class: 'home', 'data-testid': 'home' },
    hero,
    h('h1', null, t('appName')),
    h('p', { class: 'lead', 'data-testid': 'tagline' }, t('tagline')),
    myGames.el,
    h(
      'div',
      { class: 'big-buttons' },
      bigButton('/new', t('playFriends'), t('playFriendsSub'), 'play-friends', true),
      bigButton('/find', t('findOnline'), t('findOnlineSub'), 'find-online'),
      bigButton('/join', t('joinCode'), t('joinCodeSub'), 'join-code'),
      bigButton('/practice', t('practiseCpu'), t('practiseCpuSub'), 'practise-cpu'),
    ),
    localGamesList(),
    // what players say comes right after the ways to play, not below the rules (on a
    // phone it was more than two screens down)
    recommendationsView(),
    h('h2', null, t('rulesTitle')),
    h('ol', { class: 'rules', 'data-testid': 'rules' }, s.rules.map((r) => h('li', null, r))),
    learnLinks(),
    tournamentLinks(),
    feedbackLinks(),
    h('footer', null, 'Makruk · Ouk Chatrang'),
  );
  return { el, destroy: () => myGames.destroy() };
}
