/**
 * Which zone a station build files its times in: `--time-zone` as an offset
 * or an IANA name, checked against the zone the dataset already holds.
 */
import { DEFAULT_UTC_OFFSET, formatUtcOffset, parseUtcOffset, utcOffsetLabel } from '../contract/utc-offset.ts';
import { BuildError } from './build-error.ts';

/** Offset (minutes east of UTC) of the IANA zone `name` at `when`, read from Intl ("GMT+03:00"). */
function offsetAt(name: string, when: Date): number {
  const part =
    new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' })
      .formatToParts(when)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  return parseUtcOffset(part.replace(/^GMT/, '') || 'Z') ?? 0;
}

/**
 * "+03:00" for "+03:00", "+3", "UTC+3", or an IANA name's standard time
 * ("Africa/Nairobi" → "+03:00"; "Europe/Berlin" → "+01:00", its winter offset:
 * daylight saving only ever adds, so the least offset over a year is the
 * standard one). Throws naming the option for anything else.
 */
export function resolveTimeZone(text: string): string {
  const fixed = parseUtcOffset(text);
  if (fixed !== null) return formatUtcOffset(fixed);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: text.trim() });
  } catch {
    throw new BuildError(
      'invalid_option',
      `--time-zone "${text}" is neither an offset from UTC (+03:00, -05:00, UTC+2) nor a time-zone name (Africa/Nairobi); state the zone the station times are in.`,
      { option: 'timeZone' },
    );
  }
  const name = text.trim();
  const offsets = Array.from({ length: 12 }, (_, m) => offsetAt(name, new Date(Date.UTC(2024, m, 15))));
  return formatUtcOffset(Math.min(...offsets));
}

/**
 * The zone of this build: the one stated, else the dataset's, else the
 * contract's SAST. A dataset keeps one zone; a build stating another is
 * refused unless it replaces the station archive.
 */
export function buildTimeZone(stated: string | undefined, datasetOffset: string | null, replace: boolean): string {
  const zone = stated === undefined ? null : resolveTimeZone(stated);
  if (datasetOffset !== null && !replace && zone !== null && zone !== datasetOffset) {
    throw new BuildError(
      'conflict',
      `The dataset's station times are in ${utcOffsetLabel(datasetOffset)}; this build says ${utcOffsetLabel(zone)} (--time-zone ${stated}). A dataset keeps one zone: convert the files' times, build into another dataset, or pass --replace to rebuild its stations in ${utcOffsetLabel(zone)}.`,
      { option: 'timeZone' },
    );
  }
  return zone ?? datasetOffset ?? DEFAULT_UTC_OFFSET;
}
