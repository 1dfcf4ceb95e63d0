/**
 * A published store's entry (layout `zarr-store`) is checked with the rest of the catalog: what it
 * claims of the store's array is bounded before any reader sizes a chunk by it, and an unknown
 * codec, dtype or separator is refused by name (src/dataset/catalog-check.ts).
 */
import { describe, expect, it } from 'vitest';
import { emptyCatalog } from '../../src/builder/dataset/dataset-writer.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { checkDataset } from '../../src/dataset/catalog-check.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function catalog(change: (l: Json) => void = () => undefined): Catalog {
  const layer: RasterLayerEntry = {
    dataType: 'tas',
    subDataType: '-',
    extent: 'wc',
    extentBbox: [18, -34, 19.5, -33],
    timeScale: 'daily',
    unit: '°C',
    description: 'tas',
    crs: 'EPSG:4326',
    bbox: [18, -34, 19.5, -33],
    width: 30,
    height: 20,
    scale: 0.001,
    offset: 0,
    nodata: null,
    layout: 'zarr-store',
    files: [{ path: 'stores/tas.zarr', periods: ['2024-01-01', '2024-01-02'] }],
    storeArray: {
      variable: 'tas',
      dtype: '<f4',
      shape: [2, 20, 30],
      chunks: [2, 20, 30],
      separator: '.',
      compressor: { id: 'blosc', cname: 'lz4', clevel: 5, shuffle: 1 },
      filters: null,
      missing: [null],
      scaleFactor: 1,
      addOffset: 0,
      latAscending: false,
    },
  };
  const l = structuredClone(layer) as Json;
  change(l);
  return { ...emptyCatalog('t'), rasters: [l as RasterLayerEntry] };
}

const check = (change: (l: Json) => void) => () => checkDataset(catalog(change), 'catalog.json');

describe('a published store’s entry', () => {
  it('passes as `layers add` writes it', () => {
    expect(() => checkDataset(catalog(), 'catalog.json')).not.toThrow();
  });

  it.each([
    [
      'chunks of 4 GiB decoded',
      (l: Json) => (l.storeArray.chunks = [1024, 1024, 1024]),
      /storeArray\.chunks .*must hold at most 67108864 bytes/,
    ],
    [
      'an unknown compressor',
      (l: Json) => (l.storeArray.compressor = { id: 'bz2' }),
      /storeArray\.compressor .*must be null or one of zlib, gzip, blosc, zstd, lz4/,
    ],
    ['a 2-byte float', (l: Json) => (l.storeArray.dtype = '<f2'), /storeArray\.dtype is "<f2"/],
    ['a separator that is a path', (l: Json) => (l.storeArray.separator = '/..'), /storeArray\.separator/],
    ['a variable that climbs out', (l: Json) => (l.storeArray.variable = '../x'), /storeArray\.variable is "\.\.\/x"/],
    [
      'a shape off the grid',
      (l: Json) => (l.storeArray.shape = [2, 20, 31]),
      /storeArray\.shape .*must match the layer's 20 × 30 grid/,
    ],
    [
      'more dates than the store holds',
      (l: Json) => l.files[0].periods.push('2024-01-03'),
      /files .*one period per time step/,
    ],
    ['no array at all', (l: Json) => delete l.storeArray, /storeArray .*must describe the store's array/],
  ])('%s is refused by name', (_what, change, message) => {
    expect(check(change)).toThrow(message);
  });
});

describe('a source named by URL', () => {
  it('is a published store’s or a collection’s only, http(s), with nothing hidden in it', () => {
    const url = (path: string) => (l: Json) => (l.files[0].path = path);
    expect(check(url('https://data.example.org/power/daily.zarr'))).not.toThrow();
    for (const [path, why] of [
      ['file:///etc/passwd', /is absolute/],
      ['https://user:secret@data.example.org/a.zarr', /user name or password/],
      ['https://data.example.org/a.zarr?sig=1', /query or fragment/],
      ['https://data.example.org/x/../a.zarr', /"\." or "\.\." segment/],
      ['https://data.example.org/a zarr', /white space/],
      [`https://data.example.org/${'a'.repeat(1100)}`, /longer than/],
    ] as const) {
      expect(check(url(path)), path).toThrow(why);
    }
  });

  it('is refused for a built layer, whose files are the dataset’s own', () => {
    const built = (l: Json) => {
      l.layout = 'map';
      delete l.storeArray;
      l.files = [{ path: 'https://data.example.org/tas-2024.tif', periods: ['2024-01-01', '2024-01-02'] }];
    };
    expect(check(built)).toThrow(
      /only a layer referenced in place \(zarr-store, cog-collection, kerchunk, kerchunk-parquet\) may name a URL/,
    );
  });

  it('lets two layers read two arrays of one store, but not one array twice', () => {
    const two = catalog();
    const second = structuredClone(two.rasters[0]!) as Json;
    second.dataType = 'pr';
    second.storeArray.variable = 'pr';
    expect(() => checkDataset({ ...two, rasters: [two.rasters[0]!, second as RasterLayerEntry] }, 'c')).not.toThrow();
    second.storeArray.variable = 'tas';
    expect(() => checkDataset({ ...two, rasters: [two.rasters[0]!, second as RasterLayerEntry] }, 'c')).toThrow(
      /a file belongs to one layer only/,
    );
  });
});
