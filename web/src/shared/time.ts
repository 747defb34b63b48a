// Times shown to the player, in the viewer's own time zone and the interface language.
// English and Thai come from the browser's Intl (Thai with its Buddhist-era year, as Thai
// readers expect). Khmer texts write Khmer digits (០–៩) as the rest of the Khmer interface
// does; many browsers (Debian's Chromium among them) carry no Khmer date data and fall back
// to another language or to a bare "2026 M11 30, Mon" form, so then the app writes Khmer
// dates itself.
import { digits, lang, t } from './i18n';

const KM_MONTHS = ['មករា', 'កុម្ភៈ', 'មីនា', 'មេសា', 'ឧសភា', 'មិថុនា', 'កក្កដា', 'សីហា', 'កញ្ញា', 'តុលា', 'វិច្ឆិកា', 'ធ្នូ'];
const KM_WEEKDAYS = ['អាទិត្យ', 'ចន្ទ', 'អង្គារ', 'ពុធ', 'ព្រហស្បតិ៍', 'សុក្រ', 'សៅរ៍'];

/** Whether a text is Khmer words (Khmer script, no Latin letters). */
function isKhmer(s: string): boolean {
  return /[\u1780-\u17ff]/.test(s) && !/[A-Za-z]/.test(s);
}

let kmDates: boolean | null = null;
/** Whether this browser's Intl.DateTimeFormat has Khmer month and weekday names. */
export function intlHasKhmerDates(): boolean {
  if (kmDates === null) {
    try {
      const f = new Intl.DateTimeFormat('km', { weekday: 'long', month: 'long', timeZone: 'UTC' });
      kmDates = f.resolvedOptions().locale.toLowerCase().startsWith('km') && isKhmer(f.format(Date.UTC(2026, 10, 30)));
    } catch {
      kmDates = false;
    }
  }
  return kmDates;
}

let kmRelative: boolean | null = null;
function intlHasKhmerRelative(): boolean {
  if (kmRelative === null) {
    try {
      const f = new Intl.RelativeTimeFormat('km', { numeric: 'auto', style: 'short' });
      kmRelative = f.resolvedOptions().locale.toLowerCase().startsWith('km') && isKhmer(f.format(-3, 'hour'));
    } catch {
      kmRelative = false;
    }
  }
  return kmRelative;
}

/** The locale handed to Intl: Khmer with Khmer digits and a 24-hour clock (no Latin "PM"). */
function locale(): string {
  return lang() === 'km' ? 'km-u-nu-khmr-hc-h23' : lang();
}

function dtf(opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale(), opts);
  } catch {
    return new Intl.DateTimeFormat(undefined, opts);
  }
}

const two = (n: number) => String(n).padStart(2, '0');

/** The Khmer date written by the app: "ថ្ងៃចន្ទ ទី៣០ ខែវិច្ឆិកា ឆ្នាំ២០២៦ ម៉ោង ២១:០០". */
function khmerDate(d: Date, long: boolean): string {
  const time = `ម៉ោង ${d.getHours()}:${two(d.getMinutes())}`;
  let s: string;
  if (long) {
    const off = -d.getTimezoneOffset();
    const abs = Math.abs(off);
    const zone = `ម៉ោងសកល ${off < 0 ? '-' : '+'}${Math.floor(abs / 60)}${abs % 60 ? `:${two(abs % 60)}` : ''}`;
    s = `ថ្ងៃ${KM_WEEKDAYS[d.getDay()]} ទី${d.getDate()} ខែ${KM_MONTHS[d.getMonth()]} ឆ្នាំ${d.getFullYear()} ${time} (${zone})`;
  } else {
    s = `${d.getDate()} ${KM_MONTHS[d.getMonth()]} ${d.getFullYear()} ${time}`;
  }
  return digits(s); // only called for a Khmer page
}

/** A scheduled start in full: weekday, date, time and the zone's name ("Indochina Time"). */
export function formatWhen(ms: number): string {
  if (lang() === 'km' && !intlHasKhmerDates()) return khmerDate(new Date(ms), true);
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
  if (lang() === 'km' && !intlHasKhmerDates()) return khmerDate(new Date(ms), false);
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

const KM_UNITS: Partial<Record<Intl.RelativeTimeFormatUnit, string>> = {
  year: 'ឆ្នាំ',
  month: 'ខែ',
  week: 'សប្ដាហ៍',
  day: 'ថ្ងៃ',
  hour: 'ម៉ោង',
  minute: 'នាទី',
};

/** "៣ ម៉ោងមុន", "ម្សិលមិញ", "២ ថ្ងៃទៀត", written by the app. */
function khmerRelative(n: number, unit: Intl.RelativeTimeFormatUnit): string {
  if (unit === 'day' && n === -1) return 'ម្សិលមិញ';
  if (unit === 'day' && n === 1) return 'ថ្ងៃស្អែក';
  const amount = `${digits(Math.abs(n))} ${KM_UNITS[unit] ?? ''}`;
  return n < 0 ? `${amount}មុន` : `${amount}ទៀត`;
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
  const own = lang() === 'km' && !intlHasKhmerRelative();
  let rtf: Intl.RelativeTimeFormat;
  try {
    rtf = new Intl.RelativeTimeFormat(locale(), { numeric: 'auto', style: 'short' });
  } catch {
    rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
  }
  for (const [unit, size] of units) {
    if (abs >= size) {
      const n = Math.trunc(diff / size);
      return own ? khmerRelative(n, unit) : rtf.format(n, unit);
    }
  }
  return t('justNow');
}

/** What is left until a time, with its units: "2 days 3 h", "1 h 05 min", "40 min 40 s". */
export function countdown(msLeft: number): string {
  const s = Math.max(0, Math.ceil(msLeft / 1000));
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  let out: string;
  if (d > 0) out = hh > 0 ? `${t(d === 1 ? 'cdDay' : 'cdDays', { n: d })} ${t('cdHours', { n: hh })}` : t(d === 1 ? 'cdDay' : 'cdDays', { n: d });
  else if (hh > 0) out = `${t('cdHours', { n: hh })} ${t('cdMinutes', { n: two(mm) })}`;
  else if (mm > 0) out = `${t('cdMinutes', { n: mm })} ${t('cdSeconds', { n: two(ss) })}`;
  else out = t('cdSeconds', { n: ss });
  return digits(out);
}

/** The value a datetime-local input wants for a time, in local time ("2026-01-14T19:00"). */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Reads a datetime-local value as local time; NaN when empty or malformed. */
export function fromLocalInput(v: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(v.trim());
  if (!m) return NaN;
  const [, y, mo, d, hh, mi, ss] = m;
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mi), Number(ss ?? 0)).getTime();
}
