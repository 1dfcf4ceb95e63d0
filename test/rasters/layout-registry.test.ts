/**
 * Layouts are a registry: every layout a catalog may name has a reader, every reader is a layout
 * the catalog describes, and the catalog check names the layouts there are. The engine asks the
 * registry, never a layout's name (src/rasters/layouts/registry.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRasterLayout, layoutOf, layoutOwns, listedFile, RASTER_LAYOUTS } from '../../src/dataset/catalog.ts';
import { LAYOUT_READERS, readerOf } from '../../src/rasters/layouts/registry.ts';

describe('the layout registry', () => {
  it('has a reader for each layout the catalog describes, and no other', () => {
    expect(Object.keys(LAYOUT_READERS).sort()).toEqual(Object.keys(RASTER_LAYOUTS).sort());
    for (const name of Object.keys(RASTER_LAYOUTS)) expect(isRasterLayout(name)).toBe(true);
    for (const other of ['series', 'toString', '__proto__', '', 'MAP']) expect(isRasterLayout(other)).toBe(false);
  });

  it('gives an entry without a layout the map reader', () => {
    expect(layoutOf({})).toBe('map');
    expect(readerOf({ layout: undefined } as never)).toBe(LAYOUT_READERS.map);
    expect(readerOf({ layout: 'zarr' } as never)).toBe(LAYOUT_READERS.zarr);
  });

  it('says what each layout’s file is on disk: what the catalog lists of it, and what it owns', () => {
    expect(listedFile({ layout: 'map' }, 'rasters/frost/months-1a2b.tif')).toEqual([
      'rasters/frost/months-1a2b.tif',
      'raster',
    ]);
    expect(listedFile({ layout: 'zarr' }, 'rasters/t/2024-1a2b.zarr')).toEqual([
      'rasters/t/2024-1a2b.zarr/.zmetadata',
      'raster-store',
    ]);
    expect(layoutOwns('zarr', 'rasters/t/2024.zarr', 'rasters/t/2024.zarr/temp/0.0.0')).toBe(true);
    expect(layoutOwns('zarr', 'rasters/t/2024.zarr', 'rasters/t/2024.zarr2/x')).toBe(false);
    expect(layoutOwns('map', 'rasters/f/a.tif', 'rasters/f/a.tif/x')).toBe(false);
    expect(layoutOwns('map', 'rasters/f/a.tif', 'rasters/f/a.tif')).toBe(true);
  });

  it('is the only place the engine and its readers learn a layout from: no layout name is compared in src/rasters or src/engine', () => {
    const offenders: string[] = [];
    for (const dir of ['src/rasters', 'src/engine']) {
      const walk = (d: string): void => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const path = join(d, e.name);
          if (e.isDirectory()) walk(path);
          else if (/\.ts$/.test(e.name) && /\.layout\s*[!=]==\s*'/.test(readFileSync(path, 'utf8')))
            offenders.push(path);
        }
      };
      walk(dir);
    }
    expect(offenders).toEqual([]);
  });
});
