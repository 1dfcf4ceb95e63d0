/**
 * The words a grower reads for a fault of the connection or of the dataset,
 * made from the engine's real errors: never a URL, never "CORS", always a
 * cause and what to do (the raw message stays in the developer panel).
 */
import { cp, mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StationRequest } from '../../src/contract/types.ts';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { errorWords } from '../../src/ui/words.ts';
import { validateNearestStation } from '../../src/contract/validate.ts';
import { errorOf as errorOfSync } from '../helpers/expect-error.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

const demo = inject('demoDataset');
const POINT: StationRequest = {
  wkts: 'POINT (18.86 -33.93)',
  dataTypes: ['temperature_max'],
  options: { timeScale: 'daily' },
  startDate: '2024-01-01',
  endDate: '2024-01-05',
};

async function errorOf(run: () => Promise<unknown>): Promise<ClimateQueryError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof ClimateQueryError) return e;
    throw e;
  }
  throw new Error('the query answered');
}

const NO_JARGON = /https?:|CORS|\.jsonl|\.json|\.parquet|\.tif|HTTP/;

describe('words for faults, from real engine errors', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cq-words-'));
    await cp(demo, join(dir, 'ds'), { recursive: true });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a dead server: offline says so; online says the server did not answer', async () => {
    const engine = createClimateEngine({ dataset: urlLocation('http://127.0.0.1:9/ds/'), timeoutMs: 3000 });
    const err = await errorOf(() => engine.nearestStation(POINT));
    expect(err.code).toBe('dataset_unavailable');
    expect(err.message).toMatch(/could not be reached/);
    const offline = errorWords(err, 'point', false);
    const online = errorWords(err, 'point', true);
    expect(offline).toBe('The climate data could not be reached: this device is offline. Connect and try again.');
    expect(online).toMatch(/^The climate data could not be reached: the data server did not answer\./);
    for (const words of [offline, online]) expect(words).not.toMatch(NO_JARGON);
  });

  it('a damaged dataset is named as such, not as a connection fault', async () => {
    const engine = createNodeEngine(join(dir, 'ds'));
    await truncate(join(dir, 'ds', 'catalog.json'), 40);
    const err = await errorOf(() => engine.nearestStation(POINT));
    expect(err.code).toBe('dataset_unavailable');
    const words = errorWords(err, 'point', true);
    expect(words).toMatch(/incomplete or damaged/);
    expect(words).not.toMatch(NO_JARGON);
  });

  it('a contract error is in the app’s words, made from its pointer and params, whatever the connection', () => {
    const err = errorOfSync(() => validateNearestStation({ ...POINT, wkts: 'POINT (19 -33); POINT (19 -33' }));
    expect(err.field).toBe('/wkts/1');
    expect(errorWords(err, 'point', false)).toBe(errorWords(err, 'point', true));
    expect(errorWords(err, 'point', true)).toBe(
      'Point G2 is not valid WKT: expected ")" at character 14, found the end.',
    );
  });
});
