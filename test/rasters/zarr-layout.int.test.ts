/**
 * The `zarr` layout's pure parts, without a build: the delta filter as
 * numcodecs defines it, the preview factor, chunk keys, the bound on a
 * chunk's compressed size, variable names, and the metadata documents a
 * store carries (what xarray and GDAL read).
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { epochDay, zarrJson, zarrStoreMetadata, type ZarrStoreSpec } from '../../src/builder/zarr-metadata.ts';
import { inflateExactly } from '../../src/io/inflate.ts';
import {
  dataChunkKey,
  deltaDecode,
  deltaEncode,
  previewChunkKey,
  previewFactor,
  previewSize,
  variableName,
  zlibBound,
} from '../../src/rasters/zarr-layout.ts';
import { rng } from '../helpers/random-shapes.ts';

describe('zarr layout, pure', () => {
  it('the delta filter: differences that wrap in Int16, undone exactly (nodata and extremes included)', () => {
    const rand = rng(3);
    const values = Int16Array.from({ length: 5000 }, (_, i) =>
      i % 97 === 0 ? -32768 : i % 89 === 0 ? 32767 : Math.round((rand() - 0.5) * 65000),
    );
    const encoded = values.slice();
    deltaEncode(encoded);
    // numcodecs: out[0] = in[0], out[i] = in[i] − in[i − 1] in the dtype (wrapping).
    for (let i = 1; i < values.length; i++)
      expect(encoded[i]).toBe(((values[i]! - values[i - 1]! + 98304) % 65536) - 32768);
    expect(encoded[0]).toBe(values[0]);
    deltaDecode(encoded);
    expect(encoded).toEqual(values);
  });

  it('preview factor: the smallest power of two bringing both edges within 1,024 px', () => {
    expect(previewFactor(328, 225)).toBe(1);
    expect(previewFactor(1024, 1024)).toBe(1);
    expect(previewFactor(1025, 10)).toBe(2);
    expect(previewFactor(1800, 1150)).toBe(2);
    expect(previewFactor(10, 4097)).toBe(8);
    expect(previewSize(1800, 1150, 2)).toEqual({ width: 900, height: 575 });
    expect(previewSize(1801, 1151, 2)).toEqual({ width: 901, height: 576 });
  });

  it('chunk keys are Zarr v2 keys with "." separators, time one chunk', () => {
    expect(dataChunkKey('temp_mean', 7, 3)).toBe('temp_mean/0.3.7');
    expect(previewChunkKey('temp_mean', 151)).toBe('preview/temp_mean/151.0.0');
  });

  it('a chunk of incompressible values fits within zlibBound of its raw size', () => {
    const rand = rng(5);
    for (const n of [2, 1000, 46_720, 187_392]) {
      const raw = Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
      for (const level of [0, 4, 9]) expect(deflateSync(raw, { level }).length).toBeLessThanOrEqual(zlibBound(n));
    }
  });

  it('variable names xarray and GDAL take without quoting', () => {
    expect(variableName('temp', 'mean')).toBe('temp_mean');
    expect(variableName('frost', '-')).toBe('frost');
    expect(variableName('precip', 'annual.v2')).toBe('precip_annual_v2');
    expect(variableName('2m_temp', '-')).toBe('v_2m_temp');
  });

  it('inflateExactly: the exact size, and refusals for a short, long or damaged stream', async () => {
    const raw = Uint8Array.from({ length: 4096 }, (_, i) => i % 251);
    const z = deflateSync(raw);
    expect(await inflateExactly(z, raw.length, 'x')).toEqual(raw);
    await expect(inflateExactly(z, raw.length + 1, 'x')).rejects.toMatchObject({ code: 'dataset_unavailable' });
    await expect(inflateExactly(z, raw.length - 1, 'x')).rejects.toMatchObject({ code: 'dataset_unavailable' });
    await expect(inflateExactly(z.subarray(0, z.length - 9), raw.length, 'x')).rejects.toMatchObject({
      code: 'dataset_unavailable',
    });
    // A bomb: 64 MiB of zeros in 65 KB. Refused at the first output past the size, without inflating it all.
    const bomb = deflateSync(new Uint8Array(64 * 1024 * 1024), { level: 9 });
    const t = performance.now();
    await expect(inflateExactly(bomb, 46_720, 'bomb')).rejects.toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringContaining('more than the 46720 bytes'),
    });
    expect(performance.now() - t).toBeLessThan(1000);
  });

  it('metadata: Zarr v2 arrays with CF attributes, ASCII JSON, consolidated', () => {
    const spec: ZarrStoreSpec = {
      arrays: { variable: 'temp_mean', chunk: 8, previewFactor: 2 },
      grid: { west: 17.8, north: -31.9, resX: 0.0025, resY: 0.0025, width: 1800, height: 1150 },
      dates: ['2024-02-28', '2024-02-29', '2024-03-01'],
      scale: 0.1,
      offset: 0,
      nodata: -32768,
      unit: '°C',
      description: 'Daily mean air temperature',
      buildId: '2026-11-28T00:00:00.000Z/abcdef12',
      id: '2024-abcdef12',
    };
    const docs = zarrStoreMetadata(spec);
    expect(docs['temp_mean/.zarray']).toMatchObject({ shape: [3, 1150, 1800], chunks: [3, 8, 8], fill_value: -32768 });
    expect(docs['preview/temp_mean/.zarray']).toMatchObject({ shape: [3, 575, 900], chunks: [1, 575, 900] });
    expect(docs['preview/range/.zarray']).toMatchObject({ shape: [3, 2], compressor: null });
    expect(docs['temp_mean/.zattrs']).toMatchObject({ units: '°C', scale_factor: 0.1, grid_mapping: 'crs' });
    const consolidated = docs['.zmetadata'] as { metadata: Record<string, unknown> };
    for (const [k, v] of Object.entries(docs)) if (k !== '.zmetadata') expect(consolidated.metadata[k]).toEqual(v);
    const text = zarrJson(docs['temp_mean/.zattrs']);
    expect(/^[\x00-\x7f]*$/.test(text)).toBe(true);
    expect(JSON.parse(text).units).toBe('°C');
    expect(['2024-02-28', '2024-02-29', '2024-03-01'].map(epochDay)).toEqual([19781, 19782, 19783]);
  });
});
