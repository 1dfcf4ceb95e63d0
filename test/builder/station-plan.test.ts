/**
 * The station build's plan, with no DuckDB and no files: which files load
 * at which scale, which scales are derived from which, and the zone the
 * times are filed in — written out here scale by scale.
 */
import { describe, expect, it } from 'vitest';
import { emptyCatalog } from '../../src/builder/dataset/dataset-writer.ts';
import { planStationBuild } from '../../src/builder/station-plan.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { buildErrorOf } from '../helpers/expect-error.ts';

const EMPTY = emptyCatalog('test');
const inNairobi = { ...EMPTY, stations: { utcOffset: '+03:00' } } as unknown as Catalog;

describe('planStationBuild', () => {
  it('derives daily from hourly, then dekads and months from the daily rows, finest first', () => {
    const plan = planStationBuild({ stations: 's.csv', hourly: ['h1.csv', 'h2.csv'] }, {}, EMPTY);
    expect(plan.loads).toEqual([{ scale: 'hourly', files: ['h1.csv', 'h2.csv'] }]);
    expect(plan.derives).toEqual([
      { to: 'daily', from: 'hourly' },
      { to: 'dekadal', from: 'daily' },
      { to: 'monthly', from: 'daily' },
    ]);
    expect(plan.scales).toEqual(['hourly', 'daily', 'dekadal', 'monthly']);
    expect(plan).toMatchObject({ zone: '+02:00', replace: false });
  });

  it('loads each scale given, and derives what is finer-given too (given rows win per station, at run time)', () => {
    const plan = planStationBuild({ stations: 's.csv', daily: 'd.csv', monthly: 'm.parquet' }, {}, EMPTY);
    expect(plan.loads.map((l) => l.scale)).toEqual(['daily', 'monthly']);
    expect(plan.derives).toEqual([
      { to: 'dekadal', from: 'daily' },
      { to: 'monthly', from: 'daily' },
    ]);
    // Monthly alone derives nothing: nothing is coarser.
    expect(planStationBuild({ stations: 's.csv', monthly: 'm.csv' }, {}, EMPTY)).toMatchObject({
      derives: [],
      scales: ['monthly'],
    });
  });

  it('files times in the dataset’s zone, a stated one, or refuses another unless replacing', () => {
    expect(planStationBuild({ stations: 's', daily: 'd' }, {}, inNairobi).zone).toBe('+03:00');
    expect(planStationBuild({ stations: 's', daily: 'd' }, { timeZone: 'Africa/Nairobi' }, inNairobi).zone).toBe(
      '+03:00',
    );
    expect(
      buildErrorOf(() => planStationBuild({ stations: 's', daily: 'd' }, { timeZone: '+02:00' }, inNairobi)),
    ).toMatchObject({
      code: 'conflict',
      option: 'timeZone',
    });
    expect(
      planStationBuild({ stations: 's', daily: 'd' }, { timeZone: '+02:00', replace: true }, inNairobi),
    ).toMatchObject({
      zone: '+02:00',
      replace: true,
    });
  });

  it('refuses a build with no observations, or a file given twice', () => {
    expect(buildErrorOf(() => planStationBuild({ stations: 's.csv' }, {}, EMPTY)).message).toMatch(
      /at least one observation file/,
    );
    expect(
      buildErrorOf(() => planStationBuild({ stations: 's', hourly: ['a.csv', 'b.csv', 'a.csv'] }, {}, EMPTY)).message,
    ).toBe('a.csv: given twice as a hourly file; give each file once.');
  });
});
