/**
 * Dekads in the app's pure parts: switching scales carries a range to the
 * dekads it covers, default dates are dekad starts, labels read as days,
 * and a season against normal compares dekad by dekad.
 */
import { describe, expect, it } from 'vitest';
import { defaultStationDates, sqlDefaultDays } from '../../src/ui/dataset-info.ts';
import { periodLabel } from '../../src/ui/result-table.ts';
import { switchScale } from '../../src/ui/scale-switch.ts';
import { planSeason, seasonOf } from '../../src/ui/season-model.ts';
import { requestDateOfDay } from '../../src/ui/sql-panel.ts';
import type { IndexedStation } from '../../src/stations/station-index.ts';

const station = (first: string, last: string) =>
  ({ id: 'S', lat: -33.9, lon: 18.8, files: { dekadal: { first, last } } }) as unknown as IndexedStation;

describe('dekads in the form', () => {
  it('daily → dekadal covers the days with the dekads that hold them; dekadal → monthly and back', () => {
    const toDekads = switchScale('daily', 'dekadal', ['rain_sum', 'temperature_max'], {
      startDate: '2024-02-05',
      endDate: '2024-03-25',
    });
    expect(toDekads.dates).toEqual({ startDate: '2024-02-01', endDate: '2024-03-21' });
    expect(toDekads.dataTypes).toEqual(['rain_sum', 'temperature_max']);
    const toMonths = switchScale('dekadal', 'monthly', ['rain_sum'], {
      startDate: '2024-02-11',
      endDate: '2024-02-21',
    });
    expect(toMonths.dates).toEqual({ startDate: '2024-02', endDate: '2024-02' });
    const back = switchScale('monthly', 'dekadal', ['rain_sum'], { startDate: '2024-02', endDate: '2024-03' });
    expect(back.dates).toEqual({ startDate: '2024-02-01', endDate: '2024-03-21' });
    const days = switchScale('dekadal', 'daily', ['rain_sum'], { startDate: '2024-02-21', endDate: '2024-02-21' });
    // The last dekad of a leap February is 9 days.
    expect(days.dates).toEqual({ startDate: '2024-02-21', endDate: '2024-02-29' });
  });

  it('default dates: the year of dekads up to the last full month the data hold', () => {
    expect(defaultStationDates([station('2020-01-01', '2024-06-21')], 'dekadal')).toEqual({
      startDate: '2023-07-01',
      endDate: '2024-06-21',
    });
    // June's last dekad not reached: May is the last full month.
    expect(defaultStationDates([station('2024-01-11', '2024-06-11')], 'dekadal')).toEqual({
      startDate: '2024-01-11',
      endDate: '2024-05-21',
    });
    expect(sqlDefaultDays([station('2020-01-01', '2024-06-21')], 'dekadal')).toEqual({
      from: '2023-07-01',
      to: '2024-06-30',
    });
  });

  it('the SQL panel’s days become the dekads that hold them', () => {
    expect(requestDateOfDay('dekadal', '2024-02-15', false)).toBe('2024-02-11');
    expect(requestDateOfDay('dekadal', '2024-02-29', true)).toBe('2024-02-21');
    expect(requestDateOfDay('hourly', '2024-02-29', true)).toBe('2024-02-29T23:00:00');
    expect(requestDateOfDay('monthly', '2024-02-29', true)).toBe('2024-02');
    expect(requestDateOfDay('dekadal', 'soon', true)).toBe('soon');
  });

  it('labels read as days: "11–20 Jun 2024", "21–29 Feb 2024"', () => {
    expect(periodLabel('2024-06-01', 'dekadal')).toBe('1–10 Jun 2024');
    expect(periodLabel('2024-06-11', 'dekadal')).toBe('11–20 Jun 2024');
    expect(periodLabel('2024-02-21', 'dekadal')).toBe('21–29 Feb 2024');
    expect(periodLabel('2023-12-21', 'dekadal')).toBe('21–31 Dec 2023');
    expect(periodLabel('2024-06-11', 'daily')).toBe('2024-06-11');
  });

  it('a season against normal compares each dekad with the same dekad of other years', () => {
    const plan = planSeason(
      'nearest-station',
      { wkts: 'POINT (18.8 -33.9)', options: { timeScale: 'dekadal' } },
      {
        scale: 'dekadal',
        first: '2022-01-01',
        last: '2024-12-21',
      },
    );
    expect(plan.ok && plan.body).toMatchObject({ startDate: '2022-01-01', endDate: '2024-12-21' });
    const rows: string[] = [];
    const values: number[] = [];
    for (const y of [2022, 2023, 2024])
      for (let m = 1; m <= 12; m++)
        for (const d of ['01', '11', '21']) {
          rows.push(`${y}-${String(m).padStart(2, '0')}-${d}`);
          values.push(y * 100 + m * 3 + Number(d));
        }
    const s = seasonOf('dekadal', rows, values, '2024')!;
    expect(s.slots).toHaveLength(36);
    expect(s.slots.slice(0, 4)).toEqual(['1 Jan', '11 Jan', '21 Jan', '1 Feb']);
    // 11 Feb: 2024's own value; the others' mean, min and max over 2022 and 2023.
    expect(s.chosen[4]).toBe(2024 * 100 + 6 + 11);
    expect(s.mean[4]).toBe(((2022 + 2023) / 2) * 100 + 6 + 11);
    expect([s.min[4], s.max[4], s.count[4]]).toEqual([2022 * 100 + 17, 2023 * 100 + 17, 2]);
  });
});
