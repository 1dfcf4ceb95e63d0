// Switching the station time scale keeps what the user chose: each type
// becomes its counterpart (checked against the derive rules by hand and
// through every name of every scale), the dates cover the same days, and
// what cannot come along is reported, never silently dropped.
import { describe, expect, it } from 'vitest';
import { counterpartType } from '../../src/contract/derive-rules.ts';
import { MAX_PERIODS } from '../../src/contract/periods.ts';
import { STATION_TIME_SCALES, STATION_TYPES } from '../../src/contract/station-data-types.ts';
import { clipToHeld, convertRange, switchScale } from '../../src/ui/scale-switch.ts';

describe('counterpart types', () => {
  it('maps the pairs a grower switches between', () => {
    expect(counterpartType('daily', 'hourly', 'rain_sum')).toBe('rain');
    expect(counterpartType('hourly', 'daily', 'rain')).toBe('rain_sum');
    expect(counterpartType('hourly', 'monthly', 'rain')).toBe('rain_sum');
    expect(counterpartType('hourly', 'daily', 'solar_radation')).toBe('solar_radiation_sum');
    expect(counterpartType('hourly', 'daily', 'humidity')).toBe('humidity_mean');
    expect(counterpartType('hourly', 'daily', 'wind_direction')).toBe('wind_direction_mean');
    expect(counterpartType('daily', 'hourly', 'temperature_median')).toBe('temperature_mean');
    expect(counterpartType('daily', 'hourly', 'temperature_max')).toBe('temperature_max');
    expect(counterpartType('monthly', 'hourly', 'solar_rad_std')).toBe('solar_radation');
    expect(counterpartType('daily', 'hourly', 'et0')).toBeNull();
    expect(counterpartType('daily', 'monthly', 'et0')).toBeNull();
  });

  it('every answer is a name of the target scale, and a name the target has is kept as it is', () => {
    for (const from of STATION_TIME_SCALES) {
      for (const to of STATION_TIME_SCALES) {
        for (const t of STATION_TYPES[from]) {
          const c = counterpartType(from, to, t);
          if (c !== null) expect(STATION_TYPES[to]).toContain(c);
          if (STATION_TYPES[to].includes(t)) expect(c).toBe(t);
        }
      }
    }
  });
});

describe('switchScale', () => {
  it('daily → hourly keeps rain and temperature, and the week becomes its hours', () => {
    const sw = switchScale('daily', 'hourly', ['temperature_max', 'rain_sum'], {
      startDate: '2024-07-01',
      endDate: '2024-07-07',
    });
    expect(sw).toEqual({
      dataTypes: ['temperature_max', 'rain'],
      dropped: [],
      dates: { startDate: '2024-07-01T00:00:00', endDate: '2024-07-07T23:00:00' },
      shortened: false,
    });
  });

  it('hourly → daily → monthly cover the same days, then months', () => {
    expect(
      convertRange('hourly', 'daily', { startDate: '2024-07-01T05:00:00', endDate: '2024-07-03T02:00:00' }),
    ).toEqual({ startDate: '2024-07-01', endDate: '2024-07-03', shortened: false });
    expect(convertRange('daily', 'monthly', { startDate: '2023-12-31', endDate: '2024-02-01' })).toEqual({
      startDate: '2023-12',
      endDate: '2024-02',
      shortened: false,
    });
    expect(convertRange('monthly', 'daily', { startDate: '2024-02', endDate: '2024-02' })).toEqual({
      startDate: '2024-02-01',
      endDate: '2024-02-29',
      shortened: false,
    });
    expect(convertRange('monthly', 'hourly', { startDate: '2024-02', endDate: '2024-02' })).toEqual({
      startDate: '2024-02-01T00:00:00',
      endDate: '2024-02-29T23:00:00',
      shortened: false,
    });
  });

  it('a range too long for one hourly request is cut at the end, and says so', () => {
    const r = convertRange('daily', 'hourly', { startDate: '2020-01-01', endDate: '2024-12-31' })!;
    expect(r.shortened).toBe(true);
    expect(r.startDate).toBe('2020-01-01T00:00:00');
    expect((Date.parse(`${r.endDate}Z`) - Date.parse(`${r.startDate}Z`)) / 3_600_000 + 1).toBe(MAX_PERIODS);
  });

  it('types without a counterpart, or not held by the dataset, are named', () => {
    const sw = switchScale(
      'daily',
      'hourly',
      ['et0', 'rain_sum', 'humidity_mean'],
      { startDate: '2024-07-01', endDate: '2024-07-01' },
      ['rain', 'temperature_mean'],
    );
    expect(sw.dataTypes).toEqual(['rain']);
    expect(sw.dropped).toEqual(['et0', 'humidity_mean']);
  });

  it('dates that do not parse (a half-typed From) give null, so the form offers its defaults', () => {
    expect(
      switchScale('daily', 'hourly', ['rain_sum'], { startDate: '2024-06', endDate: '2024-06-30' }).dates,
    ).toBeNull();
    expect(
      switchScale('daily', 'hourly', ['rain_sum'], { startDate: '2024-06-30', endDate: '2024-06-01' }).dates,
    ).toBeNull();
  });
});

describe('clipToHeld', () => {
  it('cuts a converted range to the records it overlaps, and keeps one that misses them', () => {
    expect(
      clipToHeld('daily', { startDate: '2024-06-01', endDate: '2024-06-30' }, ['2024-06-03', '2024-06-23']),
    ).toEqual({ startDate: '2024-06-03', endDate: '2024-06-23' });
    expect(clipToHeld('monthly', { startDate: '2023-01', endDate: '2024-12' }, ['2024-02-01', '2024-06-01'])).toEqual({
      startDate: '2024-02',
      endDate: '2024-06',
    });
    expect(
      clipToHeld('hourly', { startDate: '2024-06-01T00:00:00', endDate: '2024-06-02T23:00:00' }, [
        '2024-06-02T05:00:00',
        '2024-09-01T00:00:00',
      ]),
    ).toEqual({ startDate: '2024-06-02T05:00:00', endDate: '2024-06-02T23:00:00' });
    expect(
      clipToHeld('daily', { startDate: '2020-01-01', endDate: '2020-01-31' }, ['2024-06-03', '2024-06-23']),
    ).toEqual({ startDate: '2020-01-01', endDate: '2020-01-31' });
    expect(clipToHeld('daily', { startDate: '2024-06-01', endDate: '2024-06-30' }, null)).toEqual({
      startDate: '2024-06-01',
      endDate: '2024-06-30',
    });
  });
});
