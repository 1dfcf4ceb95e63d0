/**
 * The zone station times are kept in: a dataset's local standard time as a
 * fixed offset from UTC, written "+02:00". Fixed, never a rule with daylight
 * saving: an hourly key then names exactly one hour, every day of the year
 * (the contract's SAST, UTC+2, has no DST; a network elsewhere states its own).
 */

/** The contract's zone (SAST): what a dataset whose catalog names none is in. */
export const DEFAULT_UTC_OFFSET = '+02:00';

/** Offsets real zones use: UTC−12:00 to UTC+14:00. */
const MIN_MINUTES = -12 * 60;
const MAX_MINUTES = 14 * 60;

/**
 * Minutes east of UTC for an offset written "+03:00", "-0330", "+3", "UTC+2"
 * or "Z"/"UTC"; null for anything else (an IANA name, a typo, out of range).
 */
export function parseUtcOffset(text: string): number | null {
  const t = text.trim();
  if (/^(z|utc|gmt)$/i.test(t)) return 0;
  const m = /^(?:utc|gmt)?([+-−])(\d{1,2})(?::?(\d{2}))?$/i.exec(t);
  if (!m) return null;
  const minutes = Number(m[3] ?? 0);
  if (minutes >= 60) return null;
  const total = (m[1] === '+' ? 1 : -1) * (Number(m[2]) * 60 + minutes);
  return total >= MIN_MINUTES && total <= MAX_MINUTES ? total : null;
}

/** "+03:00" for 180 minutes; "-03:30" for −210. */
export function formatUtcOffset(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** Whether `text` is an offset as a catalog stores it: exactly "±hh:mm", in range. */
export function isStoredUtcOffset(text: unknown): text is string {
  return typeof text === 'string' && /^[+-]\d{2}:\d{2}$/.test(text) && parseUtcOffset(text) !== null;
}

/** How answers, exports and the app name the zone: "UTC+02:00". */
export function utcOffsetLabel(offset: string): string {
  return `UTC${offset}`;
}
