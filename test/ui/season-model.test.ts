// The season arithmetic on its own, against numbers worked out by hand:
// missing values never count as zero, the chosen year never enters its own
// normal, and a dataset of one year gets no plan.
import { describe, expect, it } from 'vitest';
import { planSeason, seasonOf, yearsBetween, yearsLabel } from '../../src/ui/season-model.ts';

describe('season model', () => {
  it('annual: mean, lowest and highest of the other years with a value', () => {
    const rows = ['2019', '2020', '2021', '2022'];
    const s = seasonOf('annual', rows, [10, null, 30, 5], '2022')!;
    // Others with values: 2019 (10) and 2021 (30); 2020 is missing, not zero.
    expect(s.otherYears).toEqual(['2019', '2021']);
    expect(s.mean).toEqual([20, 20, 20, 20]);
    expect(s.min).toEqual([10, 10, 10, 10]);
    expect(s.max).toEqual([30, 30, 30, 30]);
    expect(s.chosen).toEqual([null, null, null, 5]);
    expect(s.others).toEqual([10, null, 30, null]);
  });

  it('monthly: month by month over the other years, the chosen year left out', () => {
    const rows = ['2022-01', '2022-02', '2023-01', '2023-02', '2024-01'];
    const s = seasonOf('monthly', rows, [1, 4, 3, null, 100], '2024')!;
    expect(s.slots).toHaveLength(12);
    expect(s.mean.slice(0, 3)).toEqual([2, 4, null]);
    expect(s.min.slice(0, 2)).toEqual([1, 4]);
    expect(s.max.slice(0, 2)).toEqual([3, 4]);
    expect(s.count.slice(0, 3)).toEqual([2, 1, 0]);
    expect(s.chosen.slice(0, 3)).toEqual([100, null, null]);
  });

  it('no other year with a value: no season', () => {
    expect(seasonOf('annual', ['2023', '2024'], [null, 7], '2024')).toBeNull();
  });

  it('plans one request over every year held, and refuses a single year or a daily scale', () => {
    const body = {
      wkts: 'POINT (19 -33)',
      dataType: 'gdd',
      options: { subDataType: 'grapes' },
      startDate: '2024',
      endDate: '2024',
    };
    const p = planSeason('point', body, { scale: 'annual', first: '2019', last: '2024' });
    expect(p).toEqual({
      ok: true,
      scale: 'annual',
      path: '/api/point/',
      body: { ...body, startDate: '2019', endDate: '2024' },
      years: ['2019', '2020', '2021', '2022', '2023', '2024'],
    });
    const m = planSeason(
      'nearest-station',
      { ...body, startDate: '2024-01', endDate: '2024-12' },
      { scale: 'monthly', first: '2023-01-01', last: '2024-12-01' },
    );
    expect(m.ok && m.body).toMatchObject({ startDate: '2023-01', endDate: '2024-12' });
    expect(planSeason('point', body, { scale: 'monthly', first: '2024-01-01', last: '2024-12-01' })).toEqual({
      ok: false,
      reason: 'This dataset holds only 2024 for this; there are no other years to compare with.',
    });
    expect(planSeason('point', body, { scale: 'daily', first: '2023-01-01', last: '2024-12-31' }).ok).toBe(false);
  });

  it('names years briefly', () => {
    expect(yearsBetween('2019', '2021-12-01')).toEqual(['2019', '2020', '2021']);
    expect(yearsLabel(['2019', '2021', '2022', '2023'])).toBe('2019, 2021–2023');
    expect(yearsLabel(['2023'])).toBe('2023');
  });
});
