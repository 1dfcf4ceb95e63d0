// Files a page reads ahead for its engine Worker (dataset/read-ahead.ts), over a real HTTP host:
// the first catalog read and the first opening of an announced file take what was handed over,
// with no request; bytes of another size, null, or silence past the bound each cost the host's
// read instead; later reads go to the host; the handed-over text is checked as any catalog is; a
// caller's abort ends the wait at once; the page's read times reach the link meter.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { readAheadLocation } from '../../src/dataset/read-ahead.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const demo = inject('demoDataset');
let host: RangeServer;
let catalogText: string;
let index: { path: string; bytes: number; data: Uint8Array };

beforeAll(async () => {
  host = await startRangeServer(demo);
  catalogText = await readFile(join(demo, 'catalog.json'), 'utf8');
  const stations = (JSON.parse(catalogText) as { stations: { index: string; indexBytes: number } }).stations;
  index = {
    path: stations.index,
    bytes: stations.indexBytes,
    data: new Uint8Array(await readFile(join(demo, stations.index))),
  };
});
afterAll(() => host?.close());

const reads = (suffix: string) => host.log.filter((r) => r.path.endsWith(suffix)).length;
/** Reads of the index's bytes: not the host's probe of several ranges, which asks for two of its last bytes. */
const indexReads = () => host.log.filter((r) => r.path.endsWith(index.path) && !r.range?.includes(',')).length;
const NEAREST = {
  wkts: 'POINT (18.9 -33.9)',
  dataTypes: ['rain_sum'],
  options: { timeScale: 'daily' as const },
  startDate: '2024-01-01',
  endDate: '2024-01-31',
};

describe('readAheadLocation', () => {
  it('takes the catalog and the index handed over, and reads neither', async () => {
    host.reset();
    const ahead = readAheadLocation(host.url, 5_000);
    const engine = createClimateEngine({ dataset: ahead.location });
    const answer = engine.nearestStation(NEAREST);
    ahead.catalog(catalogText, [index.path]);
    // The link as the page measured it: one 40 ms round trip.
    ahead.file(index.path, index.data.slice(), [{ bytes: index.bytes, waitMs: 40, bodyMs: 3 }]);
    expect(ahead.location.link?.estimate().latencyMs).toBe(40);
    const body = await answer;
    expect(Object.keys(body)).toHaveLength(1);
    expect(reads('/catalog.json')).toBe(0);
    expect(indexReads()).toBe(0);
    // The same answer as an engine that read everything itself.
    host.reset();
    const plain = createClimateEngine({ dataset: host.url });
    expect(await plain.nearestStation(NEAREST)).toEqual(body);
    expect(reads('/catalog.json')).toBe(1);
    expect(indexReads()).toBe(1);
    // A reload reads the host's.
    host.reset();
    expect(await ahead.location.readText('catalog.json')).toBe(catalogText);
    expect(reads('/catalog.json')).toBe(1);
  });

  it('reads the host for what was not handed over, or not in time, or not the size the catalog says', async () => {
    host.reset();
    const failed = readAheadLocation(host.url, 5_000);
    failed.catalog(null, [index.path]);
    expect(await failed.location.readText('catalog.json')).toBe(catalogText);
    expect(reads('/catalog.json')).toBe(1);
    // Announced with a null catalog: nothing is awaited, the file is read from the host.
    const whole = await failed.location.open(index.path, { bytes: index.bytes }).read(0, index.bytes);
    expect(Buffer.from(whole).equals(Buffer.from(index.data))).toBe(true);
    expect(indexReads()).toBe(1);

    host.reset();
    const short = readAheadLocation(host.url, 5_000);
    short.catalog(catalogText, [index.path]);
    short.file(index.path, index.data.slice(0, index.bytes - 1));
    const read = await short.location.open(index.path, { bytes: index.bytes }).read(0, index.bytes);
    expect(Buffer.from(read).equals(Buffer.from(index.data))).toBe(true);
    expect(indexReads()).toBe(1);

    host.reset();
    const silent = readAheadLocation(host.url, 150);
    const t0 = performance.now();
    expect(await silent.location.readText('catalog.json')).toBe(catalogText);
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(5_000);
    expect(reads('/catalog.json')).toBe(1);
  });

  it('checks the handed-over text as a catalog, and ends a wait when the caller aborts', async () => {
    host.reset();
    const html = readAheadLocation(host.url, 5_000);
    html.catalog('<!doctype html><p>home</p>');
    await expect(createClimateEngine({ dataset: html.location }).catalog()).rejects.toMatchObject({
      code: 'dataset_unavailable',
      message: /web page/,
    });
    const waiting = readAheadLocation(host.url, 60_000);
    const controller = new AbortController();
    const read = waiting.location.readText('catalog.json', controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(read).rejects.toMatchObject({ code: 'aborted' });
    waiting.catalog(catalogText, [index.path]);
    const file = waiting.location.open(index.path, { bytes: index.bytes }).read(0, 16, AbortSignal.timeout(20));
    await expect(file).rejects.toMatchObject({ code: 'aborted' });
    expect(reads('/catalog.json') + indexReads()).toBe(0);
  });
});
