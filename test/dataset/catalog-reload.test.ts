// A catalog load that a dataset reload gave up on (a query's time budget ran out while it
// stalled) may still fail later; that failure must not wipe the newer load that later queries
// share (engine.ts `catalog`). Before, it did, and each query after it read catalog.json again.
import { describe, expect, it } from 'vitest';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import type { DatasetLocation } from '../../src/dataset/location.ts';

describe('catalog loads across a dataset reload', () => {
  it('a late failure of the abandoned load leaves the newer load in place', async () => {
    const loads: Array<{ resolve: (text: string) => void; reject: (e: unknown) => void }> = [];
    const location: DatasetLocation = {
      base: 'memory:/',
      resolve: (path) => `memory:/${path}`,
      open: () => {
        throw new Error('no files here');
      },
      // Each read waits until the test settles it, whatever its signal says: a stalled host.
      readText: () => new Promise<string>((resolve, reject) => loads.push({ resolve, reject })),
    };
    const engine = createClimateEngine({ dataset: location, timeoutMs: 50 });
    const body = {
      wkts: 'POINT (18.9 -33.9)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    };
    // The catalog stalls past the query's budget: upstream_timeout, and the engine starts afresh.
    await expect(engine.query('nearest-station', body)).rejects.toMatchObject({ code: 'upstream_timeout' });
    expect(loads).toHaveLength(1);
    const newer = engine.catalog();
    newer.catch(() => undefined);
    expect(loads).toHaveLength(2);
    // The abandoned load fails now; the newer one is still the one later callers share.
    loads[0]!.reject(new ClimateQueryError('dataset_unavailable', 'late failure'));
    await new Promise((r) => setTimeout(r, 10));
    const later = engine.catalog();
    later.catch(() => undefined);
    expect(loads).toHaveLength(2);
    for (const l of loads) l.reject(new ClimateQueryError('dataset_unavailable', 'done'));
    await expect(later).rejects.toMatchObject({ message: 'done' });
  });
});
