/**
 * CF time axes read as dates (src/builder/cf-time.ts), against an
 * independent computation: JavaScript's Date (proleptic Gregorian, UTC)
 * for the Gregorian calendars, and a day-by-day walk over fixed month
 * lengths for noleap, all_leap and 360_day.
 */
import { describe, expect, it } from 'vitest';
import { isoDate, parseCfTime } from '../../src/builder/cf-time.ts';

const walk = (lengths: (year: number) => number[], from: [number, number, number], days: number) => {
  let [y, m, d] = from;
  for (let i = 0; i < days; i++) {
    d++;
    if (d > lengths(y)[m - 1]!) [m, d] = [m + 1, 1];
    if (m > 12) [y, m] = [y + 1, 1];
  }
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
};

describe('CF time', () => {
  it('Gregorian calendars in days, hours and seconds equal Date, with a stated zone taken to UTC', () => {
    for (const [units, perDay, ref] of [
      ['days since 1850-01-01', 1, Date.UTC(1850, 0, 1)],
      ['hours since 1900-01-01 00:00:00.0', 24, Date.UTC(1900, 0, 1)],
      ['seconds since 1970-01-01T00:00:00Z', 86400, Date.UTC(1970, 0, 1)],
      ['hours since 2000-01-01 06:00 -6', 24, Date.UTC(2000, 0, 1, 12)],
    ] as const) {
      for (const cal of ['standard', 'gregorian', 'proleptic_gregorian']) {
        const axis = parseCfTime(units, cal, 'f.nc time');
        for (let k = 0; k < 400; k++) {
          const days = k * 137.37;
          const expected = new Date(ref + Math.floor(days * 86400) * 1000).toISOString().slice(0, 10);
          expect(isoDate(axis.dateOf(days * perDay)), `${units} ${days}`).toBe(expected);
        }
      }
    }
  });

  it('noleap, all_leap and 360_day equal a day-by-day walk', () => {
    const calendars = {
      noleap: () => [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
      all_leap: () => [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
      '360_day': () => Array(12).fill(30) as number[],
    };
    for (const [cal, lengths] of Object.entries(calendars)) {
      const axis = parseCfTime('days since 1990-02-15', cal, 'f.nc time');
      for (const days of [0, 1, 13, 14, 300, 365, 366, 720, 3651, 12345])
        expect(isoDate(axis.dateOf(days + 0.5)), `${cal} ${days}`).toBe(walk(lengths, [1990, 2, 15], days));
    }
  });

  it('refuses what is not a date: months since, julian, unknown calendars, the mixed calendar before 1582', () => {
    expect(() => parseCfTime('months since 2000-01-01', 'standard', 'f.nc time')).toThrow(
      /"months since" is not a date/,
    );
    expect(() => parseCfTime('days since 2000-01-01', 'julian', 'f.nc time')).toThrow(
      /calendar "julian", which cannot be mapped/,
    );
    expect(() => parseCfTime('days since 2000-01-01', 'mars', 'f.nc time')).toThrow(/calendar "mars"/);
    expect(() => parseCfTime('days since 1500-01-01', 'standard', 'f.nc time')).toThrow(/Julian before 1582-10-15/);
    expect(() => parseCfTime('days since 2001-02-29', 'standard', 'f.nc time')).toThrow(/does not exist/);
    expect(() => parseCfTime('days after 2000-01-01', 'standard', 'f.nc time')).toThrow(
      /not "<days\|hours\|minutes\|seconds> since/,
    );
    expect(isoDate(parseCfTime('days since 1500-01-01', 'proleptic_gregorian', 'x').dateOf(0))).toBe('1500-01-01');
  });
});
