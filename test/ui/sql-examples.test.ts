// Each ready SQL query declares the columns it reads, so the panel offers it only where the
// dataset holds them; the declaration must match the SQL.
import { describe, expect, it } from 'vitest';
import { SQL_EXAMPLES } from '../../src/ui/sql-examples.ts';
import { STATION_TYPES } from '../../src/contract/station-data-types.ts';

describe('ready SQL queries', () => {
  it('declare exactly the observation columns their SQL reads, all of their time scale', () => {
    for (const x of SQL_EXAMPLES) {
      const read = new Set(
        [...x.sql.matchAll(/\bo\.([a-z_]+)/g)].map((m) => m[1]!).filter((c) => c !== 'time' && c !== 'station_id'),
      );
      expect({ title: x.title, needs: [...x.needs].sort() }).toEqual({ title: x.title, needs: [...read].sort() });
      for (const t of x.needs) expect(STATION_TYPES[x.timeScale]).toContain(t);
    }
  });
});
