// The service worker (/sw.js), Web Push subscriptions and the app badge. Everything here is
// optional: a browser without service workers, push or badges plays exactly the same, and
// every failure is caught. Permission is never asked for on page load, only from a button.
import { api, tableTokens } from '../shared/api';
import { lang } from '../shared/i18n';

/** What the service worker posts to open pages after a push (see public/sw.js). */
export interface PushMessage {
  type: 'push';
  kind: string | null;
  code: string | null;
}

const listeners = new Set<(m: PushMessage) => void>();

/** Called for every push the service worker got while this page is open. */
export function onPushMessage(f: (m: PushMessage) => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

let registration: Promise<ServiceWorkerRegistration | null> | null = null;

/** Registers /sw.js (scope "/"); called once when the page loads. Asks for nothing. */
export function registerServiceWorker(): void {
  if (registration || !('serviceWorker' in navigator)) return;
  const sw = navigator.serviceWorker;
  registration = sw.register('/sw.js', { scope: '/' }).catch(() => null);
  sw.addEventListener('message', (ev: MessageEvent) => {
    const d = ev.data as Partial<PushMessage> | null;
    if (!d || d.type !== 'push') return;
    const m: PushMessage = { type: 'push', kind: d.kind ?? null, code: d.code ?? null };
    for (const f of listeners) {
      try {
        f(m);
      } catch {
        /* one listener's failure is not the others' */
      }
    }
  });
  try {
    sw.startMessages();
  } catch {
    /* older browsers start them by themselves */
  }
}

async function ready(): Promise<ServiceWorkerRegistration | null> {
  if (!registration) registerServiceWorker();
  const r = await (registration ?? Promise.resolve(null));
  if (!r) return null;
  // An installing worker cannot subscribe yet: wait (briefly) for the active one.
  if (r.active) return r;
  return Promise.race([
    navigator.serviceWorker.ready,
    new Promise<null>((res) => window.setTimeout(() => res(null), 10000)),
  ]);
}

/** Whether this browser can receive Web Push at all (a secure page with the APIs). */
export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    window.isSecureContext &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  );
}

export function permission(): NotificationPermission | 'unsupported' {
  if (!pushSupported()) return 'unsupported';
  try {
    return Notification.permission;
  } catch {
    return 'unsupported';
  }
}

// ---- "Not now", remembered per table ----
const NOT_NOW = (code: string) => `makruk.notify.notnow.${code}`;
export function notNow(code: string): boolean {
  try {
    return localStorage.getItem(NOT_NOW(code)) === '1';
  } catch {
    return false;
  }
}
export function setNotNow(code: string): void {
  try {
    localStorage.setItem(NOT_NOW(code), '1');
  } catch {
    /* ignore */
  }
}

/** base64url (no padding) → bytes, for applicationServerKey. */
export function base64UrlToBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = window.setTimeout(() => reject(new Error('timed out')), ms);
    p.then(
      (v) => {
        window.clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        window.clearTimeout(timer);
        reject(e);
      },
    );
  });
}

export type EnableResult = 'on' | 'denied' | 'failed';

/**
 * Asks for permission (call it from a click: a user gesture), subscribes and tells the
 * server, with every table this browser holds. Never throws.
 */
export async function enablePush(): Promise<{ result: EnableResult; detail?: string }> {
  if (!pushSupported()) return { result: 'failed', detail: 'unsupported' };
  let perm: NotificationPermission;
  try {
    perm = await Notification.requestPermission();
  } catch (e) {
    return { result: 'failed', detail: String(e) };
  }
  if (perm !== 'granted') return { result: perm === 'denied' ? 'denied' : 'failed', detail: perm };
  try {
    const reg = await ready();
    if (!reg) return { result: 'failed', detail: 'no service worker' };
    let sub = await reg.pushManager.getSubscription();
    if (!sub) {
      const { publicKey } = await api.pushKey();
      sub = await withTimeout(
        reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(publicKey) }),
        20000,
      );
    }
    await api.pushSubscribe(sub.toJSON(), lang(), tableTokens());
    return { result: 'on' };
  } catch (e) {
    return { result: 'failed', detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

let lastResend = '';
/**
 * When notifications are on and this browser has a subscription, sends it again with all
 * the tables it holds (so a table joined since is covered). Quiet: never asks, never throws.
 */
export async function resendSubscription(): Promise<boolean> {
  if (permission() !== 'granted') return false;
  try {
    const reg = await ready();
    const sub = await reg?.pushManager.getSubscription();
    if (!sub) return false;
    const tables = tableTokens();
    const key = `${sub.endpoint}|${lang()}|${tables.map((x) => x.code).join(',')}`;
    if (key === lastResend) return true;
    await api.pushSubscribe(sub.toJSON(), lang(), tables);
    lastResend = key;
    return true;
  } catch {
    return false;
  }
}

// ---- the app badge: how many tables wait for this player's move ----
const TURNS_KEY = 'makruk.turns';

function loadTurns(): Record<string, boolean> {
  try {
    const v = JSON.parse(localStorage.getItem(TURNS_KEY) ?? '{}') as unknown;
    return v && typeof v === 'object' ? (v as Record<string, boolean>) : {};
  } catch {
    return {};
  }
}

function showBadge(turns: Record<string, boolean>): void {
  try {
    localStorage.setItem(TURNS_KEY, JSON.stringify(turns));
  } catch {
    /* ignore */
  }
  const n = Object.values(turns).filter(Boolean).length;
  const nav = navigator as Navigator & { setAppBadge?: (n?: number) => Promise<void>; clearAppBadge?: () => Promise<void> };
  try {
    if (n > 0) void nav.setAppBadge?.(n)?.catch(() => {});
    else void nav.clearAppBadge?.()?.catch(() => {});
  } catch {
    /* not supported */
  }
}

/** One table's "your turn" flag (from the game screen). */
export function setTurnBadge(code: string, yourTurn: boolean): void {
  const turns = loadTurns();
  if (!!turns[code] === yourTurn) {
    showBadge(turns);
    return;
  }
  if (yourTurn) turns[code] = true;
  else delete turns[code];
  showBadge(turns);
}

/** Every table's flag at once (from My games). */
export function setAllTurnBadges(codes: string[]): void {
  const turns: Record<string, boolean> = {};
  for (const c of codes) turns[c] = true;
  showBadge(turns);
}
