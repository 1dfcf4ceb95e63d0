/**
 * The dating of a raster build's bands (src/builder/raster-build-dates.ts),
 * pure and without GDAL: the forms each scale's dates may be written in,
 * file-name patterns with {yyyy} {mm} {dd} and CHIRPS's dekad {d}, and the
 * refusals that name what to pass instead.
 */
import { describe, expect, it } from 'vitest';
import { compileDatePattern, datesOfInputs, normalisePeriod } from '../../src/builder/raster-build-dates.ts';
import { parseTimeScale } from '../../src/builder/raster-build-declare.ts';
import { RASTER_TIME_SCALES } from '../../src/contract/time-scales.ts';

const one = (name: string, descriptions: string[] = ['']) => ({
  path: `/in/${name}`,
  name,
  bands: descriptions.length,
  descriptions,
});

describe('dates of a raster build', () => {
  it('each scale takes the forms people write and gives the response key', () => {
    expect(normalisePeriod('daily', '20240131', 'x')).toBe('2024-01-31');
    expect(normalisePeriod('monthly', '202401', 'x')).toBe('2024-01-01');
    expect(normalisePeriod('monthly', '2024-01', 'x')).toBe('2024-01-01');
    expect(normalisePeriod('annual', '2024', 'x')).toBe('2024');
    expect(normalisePeriod('calendar_month', '3', 'x')).toBe('--03');
    // Dekads: the first day, or the dekad of the month (1–3) as CHIRPS writes it.
    expect(normalisePeriod('dekadal', '2024-01-11', 'x')).toBe('2024-01-11');
    expect(normalisePeriod('dekadal', '2024.01.3', 'x')).toBe('2024-01-21');
    expect(normalisePeriod('dekadal', '20240201', 'x')).toBe('2024-02-01');
    expect(() => normalisePeriod('dekadal', '2024-01-15', 'band 3')).toThrowError(
      /band 3: "2024-01-15" is not a dekadal date/,
    );
    expect(() => normalisePeriod('dekadal', '2024.01.4', 'x')).toThrowError(/not a dekadal date/);
  });

  it('--time-scale takes every raster scale and none; anything else is refused listing them', () => {
    for (const s of RASTER_TIME_SCALES) expect(parseTimeScale(s)).toBe(s);
    expect(parseTimeScale('none')).toBeNull();
    expect(() => parseTimeScale('hourly')).toThrowError(/daily, dekadal, monthly, annual, calendar_month, none/);
  });

  it('patterns: CHIRPS names date dekads; a pattern lacking a token or holding a foreign one is refused', () => {
    const chirps = compileDatePattern('chirps-v2.0.{yyyy}.{mm}.{d}.tif', 'dekadal');
    expect(chirps('chirps-v2.0.2024.01.1.tif')).toBe('2024-01-01');
    expect(chirps('chirps-v2.0.2024.12.3.tif')).toBe('2024-12-21');
    expect(chirps('chirps-v2.0.2024.12.4.tif')).toBeNull();
    expect(chirps('chirps-v2.0.2024.12.3.tif.aux.xml')).toBeNull();
    expect(() => compileDatePattern('chirps-v2.0.{yyyy}.{mm}.tif', 'dekadal')).toThrowError(/lacks \{d\}/);
    expect(() => compileDatePattern('tmin_{yyyy}{mm}{dd}.tif', 'monthly')).toThrowError(
      /has \{dd\}, which a monthly date does not have/,
    );
    expect(compileDatePattern('tmin_*_{yyyy}{mm}{dd}.tif', 'daily')('tmin_v2_20240229.tif')).toBe('2024-02-29');
  });

  it('datesOfInputs: stated dates win only when the files do not say otherwise; nothing is guessed', () => {
    const files = ['chirps-v2.0.2023.12.3.tif', 'chirps-v2.0.2024.01.1.tif'].map((n) => one(n));
    expect(datesOfInputs('dekadal', files, { datePattern: 'chirps-v2.0.{yyyy}.{mm}.{d}.tif' })).toEqual([
      ['2023-12-21'],
      ['2024-01-01'],
    ]);
    expect(datesOfInputs('dekadal', [one('x.tif', ['', ''])], { dates: ['2024-01-01', '2024-01-11'] })).toEqual([
      ['2024-01-01', '2024-01-11'],
    ]);
    // A band description that is a date and disagrees with the stated one: neither is taken.
    expect(() => datesOfInputs('dekadal', [one('x.tif', ['2024-01-11'])], { dates: ['2024-01-21'] })).toThrowError(
      /dated 2024-01-11 by its band description, but the dates passed make it 2024-01-21/,
    );
    // No dates anywhere: refused with what to pass, tokens of the scale included.
    expect(() => datesOfInputs('dekadal', [one('rain.tif')], {})).toThrowError(/\{yyyy\}, \{mm\}, \{d\}/);
    expect(() => datesOfInputs('dekadal', [one('x.tif', ['', ''])], { dates: ['2024-01-01'] })).toThrowError(
      /lists 1 date\(s\) but the inputs have 2 band\(s\)/,
    );
  });
});
