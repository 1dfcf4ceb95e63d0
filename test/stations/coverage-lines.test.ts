// Coverage lines: short gaps merged where the scale says so, and what a merged line can still say
// exactly. Checked against a brute force over every range of a small series: `no` and `yes` must
// always be true of the series, and `maybe` only where a range is shorter than the merged gaps.
import { describe, expect, it } from 'vitest';
import { coverageGroups, mergeShortGaps } from '../../src/builder/coverage-lines.ts';
import { dataIn, isCoverage } from '../../src/stations/station-index.ts';
import { mulberry32 } from '../../src/builder/prng.ts';

/** The runs of consecutive periods in `has` (flat [a, b, …]). */
const runsOf = (has: boolean[]) => {
  const flat: number[] = [];
  has.forEach((h, i) => {
    if (!h) return;
    if (flat.length && flat.at(-1) === i - 1) flat[flat.length - 1] = i;
    else flat.push(i, i);
  });
  return flat;
};

describe('merging short gaps', () => {
  it('joins runs separated by fewer missing periods than the gap, and says whether it did', () => {
    expect(mergeShortGaps([0, 4, 6, 9, 40, 41], 3)).toEqual({
      runs: [
        [0, 9],
        [40, 41],
      ],
      merged: true,
    });
    expect(mergeShortGaps([0, 4, 8, 9], 3)).toEqual({
      runs: [
        [0, 4],
        [8, 9],
      ],
      merged: false,
    });
    expect(mergeShortGaps([0, 4, 6, 9], 0)).toEqual({
      runs: [
        [0, 4],
        [6, 9],
      ],
      merged: false,
    });
  });

  it('groups hourly types by their merged runs, in the contract’s type order, and marks the merged groups only', () => {
    const groups = coverageGroups(
      new Map([
        ['temperature_mean', [0, 9, 12, 30]],
        ['humidity', [0, 30]],
        ['rain', [0, 3, 100, 120]],
      ]),
      'hourly',
    );
    expect(groups).toEqual([
      { types: ['temperature_mean'], runs: [[0, 30]], merged: 24 },
      {
        types: ['rain'],
        runs: [
          [0, 3],
          [100, 120],
        ],
      },
      { types: ['humidity'], runs: [[0, 30]] },
    ]);
    // Daily lines keep their exact runs.
    expect(coverageGroups(new Map([['temperature_mean', [0, 9, 12, 30]]]), 'daily')).toEqual([
      {
        types: ['temperature_mean'],
        runs: [
          [0, 9],
          [12, 30],
        ],
      },
    ]);
  });

  it('answers every range as the series does: yes and no exactly, maybe only for ranges shorter than the gaps', () => {
    const rand = mulberry32(7);
    for (let trial = 0; trial < 25; trial++) {
      const has = Array.from({ length: 120 }, () => rand() > 0.3 + 0.5 * rand());
      // Values up to each period, so that a range's truth is one subtraction.
      const upTo = [0];
      for (const h of has) upTo.push(upTo.at(-1)! + (h ? 1 : 0));
      const gap = 1 + Math.floor(rand() * 10);
      const { runs, merged } = mergeShortGaps(runsOf(has), gap);
      const cov = [{ types: ['t'], runs, ...(merged ? { merged: gap } : {}) }];
      let maybes = 0;
      const wrong: string[] = [];
      for (let a = 0; a < has.length; a++)
        for (let b = a; b < has.length; b++) {
          const truth = upTo[b + 1]! > upTo[a]!;
          const says = dataIn(cov, ['t'], a, b);
          if (says === 'maybe') {
            maybes++;
            if (b - a + 1 >= gap) wrong.push(`[${a}, ${b}] maybe, but as long as the gaps (${gap})`);
          } else if ((says === 'yes') !== truth) wrong.push(`[${a}, ${b}] ${says}`);
        }
      expect(wrong, `trial ${trial}`).toEqual([]);
      if (!merged) expect(maybes).toBe(0);
      // Another type is never in this line.
      expect(dataIn(cov, ['u'], 0, has.length - 1)).toBe('no');
    }
  });
});

describe('a coverage line as read', () => {
  it('is taken only in the shape the build writes', () => {
    expect(
      isCoverage([
        { types: ['t'], runs: [[1, 2]] },
        { types: ['u'], runs: [], merged: 24 },
      ]),
    ).toBe(true);
    for (const bad of [
      null,
      {},
      [{}],
      [{ types: 't', runs: [] }],
      [{ types: ['t'], runs: [[2, 1]] }],
      [{ types: ['t'], runs: [[1]] }],
      [{ types: ['t'], runs: [[1, 2.5]] }],
      [{ types: ['t'], runs: [], merged: 0 }],
      [{ types: ['t'], runs: [], merged: 1e9 }],
      [{ types: [3], runs: [] }],
    ])
      expect(isCoverage(bad), JSON.stringify(bad)).toBe(false);
  });
});
