// Times shown to the player, in the viewer's own time zone and the interface language.
import { lang, t } from './i18n';

function dtf(opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(lang(), opts);
  } catch {
    return new Intl.DateTimeFormat(undefined, opts);
  }
}

/** A scheduled start in full: weekday, date, time and the zone's name ("Indochina Time"). */
export function formatWhen(ms: number): string {
  return dtf({
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'long',
  }).format(new Date(ms));
}

/** A date with its time, shorter ("14 Jan 2026, 19:00"). */
export function formatDate(ms: number): string {
  return dtf({ year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }).format(new Date(ms));
}

/** The viewer's time zone, for the start-time field ("Asia/Bangkok (GMT+7)"). */
export function zoneName(): string {
  let id = '';
  try {
    id = Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    /* ignore */
  }
  let off = '';
  try {
    const part = dtf({ timeZoneName: 'short' })
      .formatToParts(new Date())
      .find((p) => p.type === 'timeZoneName');
    off = part?.value ?? '';
  } catch {
    /* ignore */
  }
  if (id && off && off !== id) return `${id.replace(/_/g, ' ')} (${off})`;
  return id.replace(/_/g, ' ') || off;
}

/** "3 hours ago", "yesterday", "in 2 days". */
export function relative(ms: number, now = Date.now()): string {
  const diff = ms - now; // negative: in the past
  const abs = Math.abs(diff);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 365 * 86400e3],
    ['month', 30 * 86400e3],
    ['week', 7 * 86400e3],
    ['day', 86400e3],
    ['hour', 3600e3],
    ['minute', 60e3],
  ];
  let rtf: Intl.RelativeTimeFormat;
  try {
    rtf = new Intl.RelativeTimeFormat(lang(), { numeric: 'auto', style: 'short' });
  } catch {
    rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
  }
  for (const [unit, size] of units) {
    if (abs >= size) return rtf.format(Math.trunc(diff / size), unit);
  }
  return t('justNow');
}

/** What is left until a time: "2 d 03:12:45", "05:12", "1:02:03". */
export function countdown(msLeft: number): string {
  const s = Math.max(0, Math.ceil(msLeft / 1000));
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = d > 0 || hh > 0 ? `${two(hh)}:${two(mm)}:${two(ss)}` : `${two(mm)}:${two(ss)}`;
  return d > 0 ? `${t('daysShort', { n: d })} ${clock}` : clock;
}

/** The value a datetime-local input wants for a time, in local time ("2026-01-14T19:00"). */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Reads a datetime-local value as local time; NaN when empty or malformed. */
export function fromLocalInput(v: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(v.trim());
  if (!m) return NaN;
  const [, y, mo, d, hh, mi, ss] = m;
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mi), Number(ss ?? 0)).getTime();
}
