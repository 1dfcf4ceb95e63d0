// The pure half of "Chill and heat": which request an answer leads to, and
// how an answer is laid out (hand-built answers, hand-computed expectations).
import { describe, expect, it } from 'vitest';
import { arrangeIndices, planIndices, seasonName } from '../../src/ui/indices-model.ts';
import { blankWords } from '../../src/ui/words.ts';
import type { IndexPeriod } from '../../src/contract/station-indices.ts';

const held = { first: '2019-03-15', last: '2024-11-20' };

describe('planIndices', () => {
  it('a point answer: the first point, by season over every day held', () => {
    const p = planIndices('nearest-station', { wkts: 'POINT (19.3 -33.4);POINT (18 -33)' }, held);
    expect(p).toEqual({
      ok: true,
      where: 'the nearest station to the first point',
      body: {
        wkts: 'POINT (19.3 -33.4)',
        indices: ['chill_portions', 'dpcu', 'gdd', 'gdh', 'frost_days', 'frost_hours'],
        startDate: '2019-03-15',
        endDate: '2024-11-20',
        options: { by: 'season' },
      },
    });
  });

  it("a field: its centre's nearest station; a region polygon: the stations inside", () => {
    const field = planIndices(
      'polygon',
      { wkts: 'POLYGON ((19 -34, 19.01 -34, 19.01 -33.99, 19 -33.99, 19 -34))' },
      held,
    );
    expect(field.ok && field.body.wkts).toBe('POINT (19.00500 -33.99500)');
    const region = planIndices('poly-aggregate', { wkts: 'POLYGON ((18 -34, 20 -34, 20 -33, 18 -34))' }, held);
    expect(region.ok && region.body.wkts).toBe('POLYGON ((18 -34, 20 -34, 20 -33, 18 -34))');
  });

  it('at most twenty years (the route’s limit), ending at the last day held; nothing without stations or geometry', () => {
    const p = planIndices('point', { wkts: 'POINT (19 -33)' }, { first: '1980-01-01', last: '2024-12-31' });
    expect(p.ok && [p.body.startDate, p.body.endDate]).toEqual(['2005-01-01', '2024-12-31']);
    expect(planIndices('point', { wkts: 'POINT (19 -33)' }, null)).toMatchObject({ ok: false });
    expect(planIndices('point', { wkts: 'nonsense' }, held)).toEqual({
      ok: false,
      reason: 'Draw a point or a field first.',
    });
  });
});

const period = (value: number | null, used = 100, expected = 100): IndexPeriod => ({
  value,
  hours_expected: expected,
  hours_used: used,
  hours_missing: expected - used,
  hours_filled: 0,
  ...(value === null ? { reason: 'Only a few hours.' } : {}),
});

describe('arrangeIndices', () => {
  it('marks clipped seasons, compares the latest with whole seasons only, and says how few there are', () => {
    const chill = (v: Array<number | null>) => ({
      unit: 'chill portions',
      periods: Object.fromEntries(
        ['2020-06-10/2020-08-31', '2021-05-01/2021-08-31', '2022-05-01/2022-08-31', '2023-05-01/2023-08-31'].map(
          (l, i) => [l, period(v[i]!)],
        ),
      ),
    });
    const answer = {
      'POINT (1 2)': {
        metadata: {},
        indices: {
          chill_portions: chill([10, 50, 60, 40]),
          dpcu: chill([1, 2, 3, 4]),
          gdd: { unit: '°C·d', periods: {} },
          gdh: { unit: '°C·h', periods: {} },
          frost_days: { unit: 'days', periods: {} },
          frost_hours: { unit: 'hours', periods: {} },
        },
      },
    };
    const [t] = arrangeIndices(answer);
    expect(t!.window).toBe('1 May – 31 August');
    expect(t!.rows.map((r) => [r.label, r.partial])).toEqual([
      ['2020', true],
      ['2021', false],
      ['2022', false],
      ['2023', false],
    ]);
    // 2020 is a part-season: left out of the comparison (mean of 50 and 60).
    expect(t!.summary).toBe(
      '2023: 40.0 chill portions. The other 2 whole seasons: mean 55.0 chill portions, lowest 50.0, highest 60.0. Only 2 other seasons to compare with.',
    );
  });

  it('a missing latest value gives its reason; season names across the new year', () => {
    const answer = {
      stations_metadata: {},
      indices: {
        chill_portions: { unit: 'chill portions', periods: { '2024-05-01/2024-08-31': period(null, 10) } },
        dpcu: { unit: 'chill units', periods: { '2024-05-01/2024-08-31': period(null, 10) } },
      },
    };
    const [t] = arrangeIndices(answer);
    expect(t!.summary).toBe(
      '2024: no chill portions (dynamic model) — only 10 of 100 hours (10 %) have a temperature; a value needs 90 %.',
    );
    expect(t!.rows[0]!.known).toBe(0.1);
    expect(t!.rows[0]!.hours).toEqual({ used: 10, expected: 100 });
    expect(blankWords({ used: 0, expected: 2952 }, 0.9)).toBe('the station has no temperature in this season.');
    expect(blankWords({ used: 2547, expected: 2952 }, 0.9)).toBe(
      'only 2\u00a0547 of 2\u00a0952 hours (86.2 %) have a temperature; a value needs 90 %.',
    );
    expect(seasonName('2023-09-01', '2024-03-31')).toBe('2023/24');
    // Heat seasons clipped by the record keep their season's name.
    const heat = {
      unit: '°C·d',
      periods: {
        '2023-01-01/2023-03-31': period(5),
        '2023-09-01/2024-03-31': period(9),
        '2024-09-01/2024-12-31': period(null, 50),
      },
    };
    const [, h] = arrangeIndices({ stations_metadata: {}, indices: { ...answer.indices, gdd: heat, gdh: heat } });
    expect(h!.rows.map((r) => `${r.label}${r.partial ? ' (part)' : ''}`)).toEqual([
      '2022/23 (part)',
      '2023/24',
      '2024/25 (part)',
    ]);
  });
});
