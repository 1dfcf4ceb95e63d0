/** What a grower types and reads: the SQL panel's station list, the shape limit's words. */
import { describe, expect, it } from 'vitest';
import { stationIdsOf } from '../../src/ui/sql-panel.ts';
import { plainError } from '../../src/ui/words.ts';

describe('the SQL panel’s station list', () => {
  it('takes names (any case) and ids, and passes anything else on for the engine to name', () => {
    const stations = [
      { id: 'SYN-001', name: 'Stellenbosch 1' },
      { id: '689160-99999', name: 'Cape Town Intl' },
    ];
    expect(stationIdsOf(' stellenbosch 1, 689160-99999 ,Nowhere,', stations)).toEqual([
      'SYN-001',
      '689160-99999',
      'Nowhere',
    ]);
  });
});

describe('plain words for the shape limit', () => {
  it('"the drawn shapes hold", not "holds"', () => {
    expect(plainError('wkts holds 11 points; this endpoint takes 1 to 10.', 'point')).toBe(
      'The drawn shapes hold 11 points; this endpoint takes 1 to 10.',
    );
  });
});
