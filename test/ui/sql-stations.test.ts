/** What a grower types: the SQL panel's station list. */
import { describe, expect, it } from 'vitest';
import { stationIdsOf } from '../../src/ui/sql-panel.ts';

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
