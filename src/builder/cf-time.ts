/**
 * CF time coordinates ("days since 2000-01-01", a calendar) read as the
 * dates they state, for the raster build's NetCDF inputs. Dates are
 * declared data, so this converts exactly what the file says and refuses
 * what it cannot map to a real date: "months since"/"years since" (their
 * length is a convention, not a date), the julian calendar and unknown
 * ones, the mixed Julian/Gregorian "standard" calendar before 1582-10-15,
 * and days a real calendar has not (30 February of a 360_day calendar)
 * where the layer is daily.
 *
 * CF conventions §4.4 (time coordinate) and §4.4.1 (calendar).
 */
import { BuildError } from './build-error.ts';

/** A date in the file's own calendar (month 1–12, day 1–31). */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** The calendars a time axis may state that this reads. */
type Calendar = 'gregorian' | 'proleptic_gregorian' | 'noleap' | 'all_leap' | '360_day';

const CALENDAR_NAMES: Record<string, Calendar> = {
  standard: 'gregorian',
  gregorian: 'gregorian',
  proleptic_gregorian: 'proleptic_gregorian',
  noleap: 'noleap',
  '365_day': 'noleap',
  all_leap: 'all_leap',
  '366_day': 'all_leap',
  '360_day': '360_day',
};

const UNIT_DAYS: Record<string, number> = {
  day: 1,
  days: 1,
  d: 1,
  hour: 1 / 24,
  hours: 1 / 24,
  hr: 1 / 24,
  hrs: 1 / 24,
  h: 1 / 24,
  minute: 1 / 1440,
  minutes: 1 / 1440,
  min: 1 / 1440,
  mins: 1 / 1440,
  second: 1 / 86400,
  seconds: 1 / 86400,
  sec: 1 / 86400,
  secs: 1 / 86400,
  s: 1 / 86400,
};

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A parsed CF time axis: converts its values to dates in its calendar. */
export interface CfTimeAxis {
  calendar: Calendar;
  /** The `units` text as the file states it. */
  units: string;
  /** The date of a value: the day it falls in, in UTC when the units state a zone. */
  dateOf(value: number): CalendarDate;
}

/**
 * Parses a CF time axis from its `units` and `calendar` attributes.
 * `where` names the variable in errors (e.g. `tas_2023.nc variable time`).
 */
export function parseCfTime(units: string, calendarText: string | undefined, where: string): CfTimeAxis {
  const m =
    /^\s*([A-Za-z]+)\s+since\s+(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?\s*$/i.exec(
      units,
    );
  if (!m) {
    throw new BuildError(
      'invalid_input',
      `${where} has time units "${units}", which are not "<days|hours|minutes|seconds> since <yyyy-mm-dd[ hh:mm:ss]>". State the dates with --dates instead.`,
      { file: where },
    );
  }
  const unit = m[1]!.toLowerCase();
  const perUnit = UNIT_DAYS[unit];
  if (perUnit === undefined) {
    const why = /^(months?|years?|common_years?)$/.test(unit)
      ? `"${unit} since" is not a date: CF and UDUNITS take a month or a year as a fixed number of seconds, so values drift off calendar months`
      : `"${unit}" is not a time unit this reads (days, hours, minutes, seconds)`;
    throw new BuildError(
      'invalid_input',
      `${where} has time units "${units}": ${why}. State the dates with --dates instead.`,
      { file: where },
    );
  }
  const calName = (calendarText ?? 'standard').trim().toLowerCase();
  const calendar = CALENDAR_NAMES[calName];
  if (!calendar) {
    throw new BuildError(
      'invalid_input',
      `${where} has calendar "${calendarText}", which cannot be mapped to real dates here (read: standard, gregorian, proleptic_gregorian, noleap, 365_day, all_leap, 366_day, 360_day). State the dates with --dates instead.`,
      { file: where },
    );
  }
  const ref = { year: Number(m[2]), month: Number(m[3]), day: Number(m[4]) };
  if (ref.month < 1 || ref.month > 12 || ref.day < 1 || ref.day > monthLength(calendar, ref.year, ref.month)) {
    throw new BuildError(
      'invalid_input',
      `${where} has time units "${units}", whose reference date does not exist in its ${calName} calendar.`,
      { file: where },
    );
  }
  const refDayFraction = (Number(m[5] ?? 0) * 3600 + Number(m[6] ?? 0) * 60 + Number(m[7] ?? 0)) / 86400;
  const zoneDays = zoneOffsetDays(m[8]);
  const refDay = dayNumber(calendar, ref) + refDayFraction - zoneDays;
  const gregorianStart = dayNumber('proleptic_gregorian', { year: 1582, month: 10, day: 15 });
  if (calendar === 'gregorian' && refDay < gregorianStart) {
    throw new BuildError(
      'invalid_input',
      `${where} has time units "${units}" in the standard calendar, which is Julian before 1582-10-15; this does not read mixed Julian/Gregorian dates. State the dates with --dates instead.`,
      { file: where },
    );
  }
  return {
    calendar,
    units,
    dateOf(value: number): CalendarDate {
      if (!Number.isFinite(value))
        throw new BuildError('invalid_input', `${where} holds a time value that is not a number (${value}).`, {
          file: where,
        });
      // A whole number of days stays whole despite float steps (0.1 h × 240 = 24.000000000000004 h).
      const day = Math.floor(refDay + value * perUnit + 1e-9);
      if (calendar === 'gregorian' && day < gregorianStart) {
        throw new BuildError(
          'invalid_input',
          `${where} holds time ${value} (${units}), a date before 1582-10-15 in the standard calendar, which this does not read. State the dates with --dates instead.`,
          { file: where },
        );
      }
      return dateOfDay(calendar, day);
    },
  };
}

/** True when `d` exists in the proleptic Gregorian calendar (not 29 Feb of a common year, not 30 Feb). */
export function isRealDate(d: CalendarDate): boolean {
  return d.month >= 1 && d.month <= 12 && d.day >= 1 && d.day <= monthLength('proleptic_gregorian', d.year, d.month);
}

/** `yyyy-mm-dd` of a date (years 0–9999). */
export function isoDate(d: CalendarDate): string {
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

function zoneOffsetDays(zone: string | undefined): number {
  if (!zone || /^(Z|UTC|GMT)$/i.test(zone)) return 0;
  const z = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone)!;
  return ((z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0))) / 1440;
}

function isLeap(calendar: Calendar, year: number): boolean {
  if (calendar === 'noleap') return false;
  if (calendar === 'all_leap') return true;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function monthLength(calendar: Calendar, year: number, month: number): number {
  if (calendar === '360_day') return 30;
  return month === 2 && isLeap(calendar, year) ? 29 : MONTH_DAYS[month - 1]!;
}

/** Days from 0000-01-01 of the calendar to `d` (Gregorian calendars: proleptic, as the 1582 bound is checked apart). */
function dayNumber(calendar: Calendar, d: CalendarDate): number {
  if (calendar === '360_day') return d.year * 360 + (d.month - 1) * 30 + (d.day - 1);
  if (calendar === 'noleap' || calendar === 'all_leap') {
    let n = d.year * (calendar === 'noleap' ? 365 : 366);
    for (let m = 1; m < d.month; m++) n += monthLength(calendar, d.year, m);
    return n + d.day - 1;
  }
  // Proleptic Gregorian day count (civil-from-days inverse, H. Hinnant's algorithm), any fixed origin (only differences are used).
  const y = d.year - (d.month <= 2 ? 1 : 0);
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (d.month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d.day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 60;
}

function dateOfDay(calendar: Calendar, n: number): CalendarDate {
  if (calendar === '360_day') {
    const year = Math.floor(n / 360);
    const r = n - year * 360;
    return { year, month: Math.floor(r / 30) + 1, day: (r % 30) + 1 };
  }
  if (calendar === 'noleap' || calendar === 'all_leap') {
    const len = calendar === 'noleap' ? 365 : 366;
    const year = Math.floor(n / len);
    let r = n - year * len;
    let month = 1;
    while (r >= monthLength(calendar, year, month)) r -= monthLength(calendar, year, month++);
    return { year, month, day: r + 1 };
  }
  const z = n + 60;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
