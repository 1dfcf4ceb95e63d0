/** One point's nearest-station answer, asked through a Node engine as a user would: its metadata and its rows (period → type → value). */
import { createNodeEngine } from '../../src/node/node-engine.ts';

export interface NearestAnswer {
  metadata: Record<string, unknown>;
  data: Record<string, Record<string, number | null>>;
}

export async function nearestAnswer(
  dataset: string,
  lon: number,
  lat: number,
  types: string[],
  timeScale: string,
  from: string,
  to: string,
): Promise<NearestAnswer> {
  const engine = createNodeEngine(dataset);
  try {
    const res = (await engine.query('nearest-station', {
      wkts: `POINT (${lon} ${lat})`,
      dataTypes: types,
      options: { timeScale },
      startDate: from,
      endDate: to,
    })) as unknown as Record<string, NearestAnswer>;
    return Object.values(res)[0]!;
  } finally {
    await engine.close();
  }
}
