/** A layer's daily (or other) series at one point, asked through a Node engine as a user would: date → value. */
import { expect } from 'vitest';
import { createNodeEngine, type NodeEngineOptions } from '../../src/node/node-engine.ts';

export interface PointAsk {
  layer: string;
  extent: string;
  lon: number;
  lat: number;
  startDate: string;
  endDate: string;
  timeScale?: string;
}

/** The answer of `/api/point/` for `ask` on the dataset at `dataset` (a folder or URL); fails the test on any other status. */
export async function pointSeries(
  dataset: string,
  ask: PointAsk,
  options: NodeEngineOptions = {},
): Promise<Record<string, number | null>> {
  const engine = createNodeEngine(dataset, options);
  try {
    const res = await engine.handle({
      method: 'POST',
      path: '/api/point/',
      body: JSON.stringify({
        wkts: `POINT (${ask.lon} ${ask.lat})`,
        dataType: ask.layer,
        options: { timeScale: ask.timeScale ?? 'daily', dataExtent: ask.extent },
        startDate: ask.startDate,
        endDate: ask.endDate,
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return Object.values(res.body as Record<string, Record<string, number | null>>)[0]!;
  } finally {
    await engine.close();
  }
}
