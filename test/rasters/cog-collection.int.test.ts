/**
 * A collection of Cloud-Optimized GeoTIFFs, one per date, shaped like CHIRPS's: float32, no nodata
 * tag (−9999 is missing), written by GDAL's COG driver, described by a static STAC catalog (a
 * catalog linking one item per date, each with its datetime and COG asset). `layers add` references
 * it in place from the STAC, or from a file name template with its dates; every answer equals
 * what GDAL reads of each date's file, and a point's dates cost at most two requests each.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogJson } from '../helpers/catalog-json.ts';
import { cli } from '../helpers/cli.ts';
import { pointSeries as seriesAt } from '../helpers/point-series.ts';
import { type TestGrid, writeGridInput } from '../helpers/grid-inputs.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';

const GRID: TestGrid = { west: 18, north: -32, res: 0.01, width: 300, height: 200 };
const DAYS = Array.from({ length: 20 }, (_, i) => `2024-01-${String(i + 1).padStart(2, '0')}`);
const name = (d: string) => `chirps-v2.0.${d.replaceAll('-', '.')}.tif`;
/** Points inside, on the "sea" (−9999), and at a tile's edge. */
const POINTS: Array<[number, number]> = [
  [18.005, -32.005],
  [19.555, -33.105],
  [19.285, -33.275],
  [18.705, -32.635],
  [18.305, -33.805],
];

let root: string;
let dir: string;
let server: RangeServer;

/** GDAL's own read of one pixel of one file (gdallocationinfo, the pixel containing lon, lat), once each. */
const gdalRead = new Map<string, number>();
function gdalValue(file: string, lon: number, lat: number): number {
  const key = `${file} ${lon} ${lat}`;
  if (!gdalRead.has(key)) gdalRead.set(key, gdalOnce(file, lon, lat));
  return gdalRead.get(key)!;
}
function gdalOnce(file: string, lon: number, lat: number): number {
  return Number(
    execFileSync('gdallocationinfo', ['-valonly', '-geoloc', file, String(lon), String(lat)], {
      encoding: 'utf8',
    }).trim(),
  );
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-cogs-'));
  dir = join(root, 'ds');
  await mkdir(join(dir, 'cogs'), { recursive: true });
  await mkdir(join(dir, 'stac', 'items'), { recursive: true });
  for (const [b, day] of DAYS.entries()) {
    const plain = join(root, `plain-${day}.tif`);
    await writeGridInput(plain, GRID, [day], (c, r) =>
      // The "sea" in the south-west corner is −9999, as CHIRPS writes it, with no nodata tag.
      r > 150 && c < 60
        ? -9999
        : Math.max(0, Math.round((Math.sin((c + b * 7) / 23) * 9 + Math.cos(r / 17) * 6) * 100) / 100),
    );
    execFileSync('gdal_translate', [
      '-q',
      '-of',
      'COG',
      '-co',
      'BLOCKSIZE=128',
      '-co',
      'COMPRESS=DEFLATE',
      '-a_nodata',
      'none',
      plain,
      join(dir, 'cogs', name(day)),
    ]);
    await writeFile(
      join(dir, 'stac', 'items', `${day}.json`),
      JSON.stringify({
        type: 'Feature',
        stac_version: '1.0.0',
        id: `chirps-${day}`,
        properties: { datetime: `${day}T00:00:00Z` },
        geometry: null,
        links: [],
        assets: {
          data: {
            href: `../../cogs/${name(day)}`,
            type: 'image/tiff; application=geotiff; profile=cloud-optimized',
            roles: ['data'],
          },
          thumbnail: { href: `../../cogs/${day}.png`, type: 'image/png' },
        },
      }),
    );
  }
  await writeFile(
    join(dir, 'stac', 'catalog.json'),
    JSON.stringify({
      type: 'Catalog',
      stac_version: '1.0.0',
      id: 'chirps-wc',
      description: 'CHIRPS-shaped daily COGs',
      links: DAYS.map((d) => ({ rel: 'item', href: `./items/${d}.json` })),
    }),
  );
  server = await startRangeServer(dir);
}, 300_000);
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const series = async (layer: string, lon: number, lat: number, at = dir) =>
  seriesAt(at, { layer, extent: 'cogs', lon, lat, startDate: DAYS[0]!, endDate: DAYS.at(-1)! });

const add = (source: string, layer: string, ...extra: string[]) =>
  cli([
    'layers',
    'add',
    source,
    '--layer',
    layer,
    '--time-scale',
    'daily',
    '--unit',
    'mm',
    '--extent',
    'cogs',
    ...extra,
    '--data',
    dir,
  ]);

describe('daily COGs shaped like CHIRPS’s, described by a static STAC catalog', () => {
  it('is added in place with its missing value stated (the files carry none), and answers what GDAL reads of each file', async () => {
    const added = await add(join(dir, 'stac', 'catalog.json'), 'chirps', '--nodata=-9999');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(
      /a COG per date read in place \(cogs\/chirps-v2\.0\.\{yyyy\}\.\{mm\}\.\{dd\}\.tif, tiles 128 × 128, nodata -9999\)/,
    );
    let compared = 0;
    let missing = 0;
    for (const [lon, lat] of POINTS) {
      const got = await series('chirps', lon, lat);
      for (const day of DAYS) {
        const want = gdalValue(join(dir, 'cogs', name(day)), lon, lat);
        if (want === -9999) {
          expect(got[day], `${lon} ${lat} ${day}`).toBeNull();
          missing++;
        } else {
          expect(Math.abs(got[day]! - want), `${lon} ${lat} ${day}`).toBeLessThanOrEqual(0.0005 + 1e-6);
          compared++;
        }
      }
    }
    expect(compared).toBe(4 * DAYS.length);
    expect(missing).toBe(DAYS.length);
  });

  it('is built into the own layout by `build` from its STAC, here or at its URL: every value GDAL’s, −9999 null', async () => {
    for (const [source, out] of [
      [join(dir, 'stac', 'catalog.json'), join(root, 'built-here')],
      [`${server.url}stac/catalog.json`, join(root, 'built-url')],
    ] as const) {
      const built = await cli([
        'build',
        ...['--out', out, '--layer', 'chirps', '--unit', 'mm', '--time-scale', 'daily', '--extent', 'cogs'],
        '--nodata=-9999',
        source,
      ]);
      expect(built.code, built.stderr).toBe(0);
      expect(built.stderr).toMatch(/read .*catalog\.json: a COG per date, 20 dates \(2024-01-01 … 2024-01-20\)/);
      let compared = 0;
      for (const [lon, lat] of POINTS) {
        const got = await series('chirps', lon, lat, out);
        for (const day of DAYS) {
          const want = gdalValue(join(dir, 'cogs', name(day)), lon, lat);
          if (want === -9999) expect(got[day], `${source} ${lon} ${lat} ${day}`).toBeNull();
          else {
            expect(Math.abs(got[day]! - want), `${source} ${lon} ${lat} ${day}`).toBeLessThanOrEqual(0.0005 + 1e-6);
            compared++;
          }
        }
      }
      expect(compared).toBe(4 * DAYS.length);
    }
  });

  it('a point’s 20 dates over HTTP: the files’ headers and tiles, at most two requests a date, nothing else', async () => {
    server.reset();
    await series('chirps', 19.555, -33.105, server.url);
    const cogReads = server.log.filter((r) => r.path.includes('/cogs/'));
    expect(cogReads.length).toBeLessThanOrEqual(2 * DAYS.length);
    expect(new Set(cogReads.map((r) => r.path)).size).toBe(DAYS.length);
    expect(server.log.filter((r) => !r.path.includes('/cogs/') && !r.path.endsWith('catalog.json'))).toEqual([]);
  });

  it('the same files by a template with their dates answer the same; a date without a file is refused, not filled in', async () => {
    const tpl = join(dir, 'cogs', 'chirps-v2.0.{yyyy}.{mm}.{dd}.tif');
    const before = await Promise.all(POINTS.map(([lon, lat]) => series('chirps', lon, lat)));
    // One folder belongs to one layer: the STAC's layer goes (its files stay: they are not the dataset's).
    const removed = await cli(['layers', 'remove', 'chirps', '--data', dir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toMatch(/0 file\(s\) deleted/);
    const short = await add(tpl, 'chirps', '--dates', '2024-01-01..2024-01-25', '--nodata=-9999');
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/5 of the dates asked have no file: 2024-01-21/);
    const added = await add(tpl, 'chirps', '--dates', `${DAYS[0]}..${DAYS.at(-1)}`, '--nodata=-9999');
    expect(added.code, added.stderr).toBe(0);
    for (const [k, [lon, lat]] of POINTS.entries()) expect(await series('chirps', lon, lat)).toEqual(before[k]);
  });

  it('the same collection at its URL (STAC read over HTTP, or a template) answers the same, read where it is', async () => {
    const here = await Promise.all(POINTS.map(([lon, lat]) => series('chirps', lon, lat)));
    const origin = new URL(server.url).origin;
    for (const [k, source] of [
      `${server.url}stac/catalog.json`,
      `${server.url}cogs/chirps-v2.0.{yyyy}.{mm}.{dd}.tif`,
    ].entries()) {
      const elsewhere = join(root, `remote-${k}`);
      await mkdir(elsewhere);
      const added = await cli([
        'layers',
        'add',
        source,
        ...['--layer', 'chirps', '--time-scale', 'daily', '--unit', 'mm', '--extent', 'cogs', '--nodata=-9999'],
        ...(k === 1 ? ['--dates', `${DAYS[0]}..${DAYS.at(-1)}`] : []),
        ...['--data', elsewhere],
      ]);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).toContain(`${server.url}cogs/chirps-v2.0.{yyyy}.{mm}.{dd}.tif`);
      for (const [i, [lon, lat]] of POINTS.entries()) {
        const got = await seriesAt(
          elsewhere,
          { layer: 'chirps', extent: 'cogs', lon, lat, startDate: DAYS[0]!, endDate: DAYS.at(-1)! },
          { allowOrigins: [origin] },
        );
        expect(got, `${source} ${lon} ${lat}`).toEqual(here[i]);
      }
    }
  });

  it('files that state no nodata value are refused without --nodata (−9999 would be rain); --nodata none keeps every value', async () => {
    const refused = await add(join(dir, 'stac', 'catalog.json'), 'unstated');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/state no nodata value: pass --nodata=-9999 .* or --nodata none/);
    expect(
      (await catalogJson(join(dir, 'catalog.json'))).rasters.some(
        (l: { dataType: string }) => l.dataType === 'unstated',
      ),
    ).toBe(false);
    // A folder belongs to one layer: two of the dates, copied, for a layer whose user says every value is data.
    await mkdir(join(dir, 'asis'));
    for (const d of DAYS.slice(0, 2)) await copyFile(join(dir, 'cogs', name(d)), join(dir, 'asis', name(d)));
    const kept = await add(
      join(dir, 'asis', 'chirps-v2.0.{yyyy}.{mm}.{dd}.tif'),
      'asis',
      '--dates',
      `${DAYS[0]}..${DAYS[1]}`,
      '--nodata',
      'none',
    );
    expect(kept.code, kept.stderr).toBe(0);
    // The sea's −9999 is then a value, as the user said.
    const sea = await seriesAt(dir, {
      layer: 'asis',
      extent: 'cogs',
      lon: GRID.west + 10.5 * GRID.res,
      lat: GRID.north - 170.5 * GRID.res,
      startDate: DAYS[0]!,
      endDate: DAYS[1]!,
    });
    expect(Object.values(sea)).toEqual([-9999, -9999]);
  });

  it('an item without a date, or with two GeoTIFFs and no --asset, is refused by name', async () => {
    await writeFile(
      join(dir, 'stac', 'odd.json'),
      JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, assets: {} }] }),
    );
    const undated = await add(join(dir, 'stac', 'odd.json'), 'odd', '--nodata=-9999');
    expect(undated.code).not.toBe(0);
    expect(undated.stderr).toMatch(/has no datetime .* would have to be guessed/);
  });
});
