// Game clocks as the server keeps them (docs/api.md, "clock"): the time a side has left
// now, counted from the server's own time, which this page estimates from the times the
// server sends (on the WebSocket's welcome and each pong).
import type { ClockRule, Color, GameClock } from './api';
import { digits, t } from './i18n';

let offset = 0; // the server's clock minus this page's, in ms

/** The server said it is `now` (ms since the epoch). */
export function heardServerTime(now: unknown): void {
  if (typeof now === 'number' && Number.isFinite(now)) offset = now - Date.now();
}

/** The server's time now, as this page estimates it. */
export function serverNow(): number {
  return Date.now() + offset;
}

/** What `side` has left now (ms, not below 0). */
export function timeLeft(c: GameClock, side: Color, now = serverNow()): number {
  const left = c.running === side ? c[side] - (now - c.since) : c[side];
  return Math.max(0, left);
}

/** "4:07", "1:02:00"; tenths in the last ten seconds ("0:08.4"); in the language's digits. */
export function clockText(ms: number): string {
  const tenths = Math.floor(ms / 100);
  const s = Math.floor(tenths / 10);
  const two = (n: number) => String(n).padStart(2, '0');
  let text = s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
  if (s < 10) text += `.${tenths % 10}`;
  return digits(text);
}

/** A table's clock rule as its summary shows it ("Clock: 10+5"), or null without one. */
export function clockRuleText(rule: ClockRule | null | undefined): string | null {
  if (!rule) return null;
  return `${t('clock')}: ${digits(`${Math.round(rule.ms / 60000)}+${Math.round(rule.incrementMs / 1000)}`)}`;
}
