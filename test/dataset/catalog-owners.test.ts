/**
 * Every reader of a catalog (the engine and each build) takes it through one check: its paths stay
 * inside the dataset whatever a host decodes, each path has one owner, and a grid claim is bounded.
 */
import { describe, expect, it } from 'vitest';
import { checkDataset, MAX_LAYER_PIXELS } from '../../src/dataset/catalog-check.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { checkFileOwners } from '../../src/dataset/catalog-owners.ts';
import { checkDatasetPath } from '../../src/dataset/dataset-path.ts';

const layer = (dataType: string, paths: string[], extra: Partial<RasterLayerEntry> = {}): RasterLayerEntry => ({
  dataType,
  subDataType: '-',
  extent: 'tc',
  extentBbox: [18, -34, 19, -33],
  timeScale: 'annual',
  unit: '°C',
  description: dataType,
  crs: 'EPSG:4326',
  bbox: [18, -34, 19, -33],
  width: 10,
  height: 10,
  scale: 1,
  offset: 0,
  nodata: -32768,
  files: paths.map((path, i) => ({ path, periods: [String(2000 + i)] })),
  ...extra,
});

const catalog = (rasters: RasterLayerEntry[], stations = true): Catalog => ({
  format: 'climate-query-dataset',
  version: 1,
  name: 't',
  created: '',
  attribution: [],
  files: [],
  stations: stations
    ? {
        layout: 'station-parquet-1',
        index: 'stations/index.parquet',
        indexBytes: 100,
        coverage: 'stations/coverage.jsonl',
        coverageBytes: 10,
        count: 1,
        dataTypes: {},
      }
    : null,
  rasters,
});

describe('paths a host may decode', () => {
  it.each([
    ['stations/.%2E/.%2E/secret/coverage.jsonl'],
    ['rasters/%2e%2e/x.tif'],
    ['rasters/%252e%252e/x.tif'],
    ['rasters/a%2F..%2Fb/x.tif'],
    ['rasters/%2Fetc/passwd'],
    ['rasters/a%5C..%5Cb.tif'],
    ['rasters/%zz.tif'],
    ['rasters/x%00.tif'],
  ])('%s is refused by name', (path) => {
    expect(() => checkDatasetPath(path, 'catalog.json')).toThrow(/catalog\.json lists the file/);
  });

  it.each([['stations/daily/station_id=a%2Fb/data_0.parquet'], ['stations/daily/station_id=100%25/data_0.parquet']])(
    '%s (a station id the build percent-encoded) is kept',
    (path) => {
      expect(checkDatasetPath(path, 'catalog.json')).toBe(path);
    },
  );

  it('a preview path is confined like a file path', () => {
    const c = catalog([layer('frost', ['rasters/frost/years-a.tif'], { preview: '../../etc/passwd' })]);
    expect(() => checkDataset(c, 'catalog.json')).toThrow(/etc\/passwd.*climbs out/);
  });
});

describe('one owner per path', () => {
  const refused = (c: Catalog, text: RegExp) => {
    expect(() => checkFileOwners(c, 'catalog.json')).toThrow(text);
    expect(() => checkDataset(c, 'catalog.json')).toThrow(text);
  };

  it('distinct files and stores pass', () => {
    expect(() =>
      checkDataset(
        catalog([
          layer('gdd', ['rasters/gdd-apples/years-a.tif']),
          layer('chill', ['rasters/chill/years-b.tif', 'rasters/chill/2024-b.zarr'], {
            preview: 'rasters/chill/p.png',
          }),
        ]),
        'catalog.json',
      ),
    ).not.toThrow();
  });

  it('a file two layers list is refused, naming both', () => {
    refused(
      catalog([layer('gdd', ['rasters/gdd-apples/years.tif']), layer('chill', ['rasters/gdd-apples/years.tif'])]),
      /"rasters\/gdd-apples\/years\.tif" for chill \(tc\), and "rasters\/gdd-apples\/years\.tif" for gdd \(tc\)/,
    );
  });

  it('a file inside another layer’s store, or a store around another’s file, is refused', () => {
    refused(
      catalog([layer('tmax', ['rasters/t/2024-a.zarr']), layer('tmin', ['rasters/t/2024-a.zarr/tmin/0.0.0'])]),
      /for tmin \(tc\), and "rasters\/t\/2024-a\.zarr" for tmax/,
    );
    refused(
      catalog([layer('tmin', ['rasters/t/2024-a.zarr/tmin/0.0.0']), layer('tmax', ['rasters/t/2024-a.zarr'])]),
      /for tmax \(tc\), and "rasters\/t\/2024-a\.zarr\/tmin\/0\.0\.0" for tmin/,
    );
  });

  it.each([
    ['catalog.json', /where the catalog is/],
    ['stations/index.parquet', /where the station archive is/],
    ['stations', /where the station archive is/],
    ['stations/daily/station_id=x/data_0.parquet', /where the station archive is/],
  ])('a preview or file at %s is refused', (path, text) => {
    refused(catalog([layer('frost', ['rasters/frost/years.tif'], { preview: path })]), text);
    refused(catalog([layer('frost', [path])]), text);
  });

  it('a layer listing one path twice is refused', () => {
    refused(catalog([layer('frost', ['rasters/f/a.tif', 'rasters/f/a.tif'])]), /twice for frost/);
  });

  it('200,000 files under shared folders pass (the check walks segments, not pairs)', () => {
    const files = Array.from({ length: 200_000 }, (_, i) => `rasters/x/${Math.floor(i / 1000)}/f${i}.tif`);
    expect(() => checkFileOwners(catalog([layer('x', files)], false), 'catalog.json')).not.toThrow();
  });
});

describe('grid claims are bounded', () => {
  it('a grid of more than the documented pixels is refused', () => {
    const c = catalog([
      layer('t', ['rasters/t/a.tif'], { width: 1_000_000, height: 1_000_000, bbox: [18, -34, 19, -33] }),
    ]);
    expect(() => checkDataset(c, 'catalog.json')).toThrow(
      new RegExp(`width × height is 1000000000000, which must be at most ${MAX_LAYER_PIXELS.toLocaleString('en')}`),
    );
  });

  it('a lon/lat box off the globe is refused', () => {
    const c = catalog([layer('t', ['rasters/t/a.tif'], { bbox: [18, -34, 19, 95] })]);
    expect(() => checkDataset(c, 'catalog.json')).toThrow(/bbox is \[18, -34, 19, 95\], which must lie within/);
  });
});
