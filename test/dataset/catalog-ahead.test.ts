// The catalog a page reads for its engine Worker (dataset/location.ts withCatalogText, over a real
// HTTP host): the first catalog read takes the page's text without a request; the page's failure,
// or its silence past the bound, means one read of the host's own; later reads (a reload) go to
// the host; the text is checked as any catalog is; a caller's abort ends the wait at once.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { urlLocation, withCatalogText } from '../../src/dataset/location.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const demo = inject('demoDataset');
let host: RangeServer;
let catalogText: string;

beforeAll(async () => {
  host = await startRangeServer(demo);
  catalogText = await readFile(join(demo, 'catalog.json'), 'utf8');
});
afterAll(() => host?.close());

const catalogReads = () => host.log.filter((r) => r.path.endsWith('/catalog.json')).length;

describe('withCatalogText', () => {
  it('takes the given text for the first catalog read only', async () => {
    host.reset();
    const given = JSON.stringify({ ...JSON.parse(catalogText), name: 'as the page read it' });
    const location = withCatalogText(urlLocation(host.url), Promise.resolve(given), 5_000);
    expect(await location.readText('catalog.json')).toBe(given);
    expect(catalogReads()).toBe(0);
    // A reload reads the host's.
    expect(await location.readText('catalog.json')).toBe(catalogText);
    expect(catalogReads()).toBe(1);
    // The engine over it: the page's text, checked as a catalog.
    host.reset();
    const engine = createClimateEngine({
      dataset: withCatalogText(urlLocation(host.url), Promise.resolve(given), 5_000),
    });
    expect((await engine.catalog()).name).toBe('as the page read it');
    expect(catalogReads()).toBe(0);
  });

  it('reads the host when the page could not, or did not answer in time', async () => {
    host.reset();
    const failed = withCatalogText(urlLocation(host.url), Promise.resolve(null), 5_000);
    expect(await failed.readText('catalog.json')).toBe(catalogText);
    expect(catalogReads()).toBe(1);
    const rejected = withCatalogText(urlLocation(host.url), Promise.reject(new Error('page gone')), 5_000);
    expect(await rejected.readText('catalog.json')).toBe(catalogText);
    expect(catalogReads()).toBe(2);
    const silent = withCatalogText(urlLocation(host.url), new Promise<string | null>(() => undefined), 150);
    const t0 = performance.now();
    expect(await silent.readText('catalog.json')).toBe(catalogText);
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(5_000);
    expect(catalogReads()).toBe(3);
  });

  it('checks the page’s text as a catalog, and ends the wait when the caller aborts', async () => {
    host.reset();
    const engine = createClimateEngine({
      dataset: withCatalogText(urlLocation(host.url), Promise.resolve('<!doctype html><p>home</p>'), 5_000),
    });
    await expect(engine.catalog()).rejects.toMatchObject({ code: 'dataset_unavailable', message: /web page/ });
    const waiting = withCatalogText(urlLocation(host.url), new Promise<string | null>(() => undefined), 60_000);
    const controller = new AbortController();
    const read = waiting.readText('catalog.json', controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(read).rejects.toMatchObject({ code: 'aborted' });
    expect(catalogReads()).toBe(0);
  });
});
