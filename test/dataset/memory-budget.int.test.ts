/**
 * An engine whose one memory budget is far smaller than what its queries
 * read answers exactly as one with room to spare: evicting across the
 * station and raster caches, mid-query and between queries, never changes
 * a number.
 */
import { describe, expect, inject, it } from 'vitest';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { fileLocation } from '../../src/node/file-location.ts';

const demo = inject('demoDataset');

const QUERIES: Array<[string, unknown]> = [
  [
    'nearest-station',
    {
      wkts: 'POINT (18.86 -33.93);POINT (19.45 -33.64);POINT (20.5 -33.2)',
      dataTypes: ['temperature_mean', 'rain', 'humidity'],
      options: { timeScale: 'hourly' },
      startDate: '2024-01-01T00:00:00',
      endDate: '2024-03-31T23:00:00',
    },
  ],
  [
    'point',
    {
      wkts: 'POINT (18.86 -33.93);POINT (19.45 -33.64)',
      dataType: 'temp',
      options: { subDataType: 'max', dataExtent: 'tc', timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-12-31',
    },
  ],
  [
    'poly-aggregate',
    {
      wkts: 'POLYGON ((18.5 -34.2, 19.5 -34.2, 19.5 -33.5, 18.5 -33.5, 18.5 -34.2))',
      dataTypes: ['temperature_max', 'rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2023-01-01',
      endDate: '2024-12-31',
    },
  ],
];

describe('one memory budget over every cache', () => {
  it('a 64 KiB budget answers every query exactly as a 128 MiB one, cold and warm', async () => {
    const roomy = createClimateEngine({ dataset: fileLocation(demo) });
    const tight = createClimateEngine({ dataset: fileLocation(demo), memoryBytes: 64 * 1024 });
    try {
      for (let round = 0; round < 2; round++) {
        for (const [endpoint, body] of QUERIES) {
          const want = await roomy.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(body) });
          const got = await tight.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(body) });
          expect(want.status, `${endpoint}: ${JSON.stringify(want.body).slice(0, 300)}`).toBe(200);
          expect(got.status).toBe(200);
          expect(got.body, `${endpoint}, round ${round + 1}`).toEqual(want.body);
        }
      }
    } finally {
      await roomy.close();
      await tight.close();
    }
  });
});
