/**
 * The raster build's plan, with no GDAL and no files: what the inputs say
 * about themselves, the options and the catalog decide the layer, every
 * band's date, the files and their dates, the layout, and which layer the
 * build adds years to. Expected values are written out here, not taken
 * from the planner's helpers.
 */
import { describe, expect, it } from 'vitest';
import { emptyCatalog } from '../../src/builder/dataset/dataset-writer.ts';
import { planRasterLayer, type RasterInputMeta } from '../../src/builder/raster-plan.ts';
import type { RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { buildErrorOf } from '../helpers/expect-error.ts';

const EMPTY = emptyCatalog('test');

/** A single-band file as GDAL describes it. */
const file = (name: string, over: Partial<RasterInputMeta> = {}): RasterInputMeta => ({
  path: `/in/${name}`,
  name,
  bands: 1,
  descriptions: [''],
  hasCrs: true,
  ...over,
});

/** CHIRPS-named dekadal files of `year`, months 1–12, dekads 1–3. */
const chirps = (year: number) =>
  Array.from({ length: 36 }, (_, i) =>
    file(`chirps-v2.0.${year}.${String(Math.floor(i / 3) + 1).padStart(2, '0')}.${(i % 3) + 1}.tif`),
  );

const rain = {
  dataType: 'chirps',
  unit: 'mm',
  timeScale: 'dekadal' as const,
  datePattern: 'chirps-v2.0.{yyyy}.{mm}.{d}.tif',
};

describe('planRasterLayer', () => {
  it('dates CHIRPS dekads from their names, a file per year holding its 36 dekads, as Zarr stores', () => {
    const plan = planRasterLayer([...chirps(2024), ...chirps(2023)], rain, EMPTY);
    expect(plan.files.map((f) => f.name)).toEqual(['2023.tif', '2024.tif']);
    expect(plan.files[0]!.keys).toHaveLength(36);
    expect(plan.files[1]!.keys.slice(0, 4)).toEqual(['2024-01-01', '2024-01-11', '2024-01-21', '2024-02-01']);
    expect(plan.files[1]!.keys.at(-1)).toBe('2024-12-21');
    expect(plan.periods[0]).toEqual(['2024-01-01']);
    // 36 dates a file is past the 32 of a map layout's pixel-interleaved tiles.
    expect(plan.layout).toBe('zarr');
    expect(plan).toMatchObject({ dir: 'rasters/chirps', offset: 0, scale: null, grid: null, kept: undefined });
    expect(plan.layer).toMatchObject({ dataType: 'chirps', subDataType: '-', unit: 'mm', timeScale: 'dekadal' });
  });

  it('keeps twelve months a year as maps, and an undated layer as one map', () => {
    const months = Array.from({ length: 12 }, (_, m) => file(`t_2024${String(m + 1).padStart(2, '0')}.tif`));
    const monthly = planRasterLayer(
      months,
      { dataType: 'tmonth', unit: '°C', timeScale: 'monthly', datePattern: 't_{yyyy}{mm}.tif' },
      EMPTY,
    );
    expect(monthly.files).toEqual([
      { name: '2024.tif', keys: months.map((_, m) => `2024-${String(m + 1).padStart(2, '0')}-01`) },
    ]);
    expect(monthly.layout).toBe('map');
    const undated = planRasterLayer([file('dem.tif')], { dataType: 'dem', unit: 'm', timeScale: null }, EMPTY);
    expect(undated.files).toEqual([{ name: 'layer.tif', keys: [''] }]);
    expect(undated.layout).toBe('map');
    // A family's storage step needs no values.
    expect(planRasterLayer([file('w.tif')], { dataType: 'windspeed', subDataType: '20' }, EMPTY).scale).toBe(0.01);
  });

  it('adds a year to the layer the dataset holds, on its grid, step and layout; --replace starts afresh', () => {
    const held: RasterLayerEntry = {
      dataType: 'chirps',
      subDataType: '-',
      extent: 'wc',
      extentBbox: [17, -35, 24, -30],
      timeScale: 'dekadal',
      unit: 'mm',
      description: 'CHIRPS',
      crs: 'EPSG:4326',
      bbox: [17, -35, 24, -30],
      width: 140,
      height: 100,
      resolution: [0.05, 0.05],
      scale: 0.1,
      offset: 0,
      nodata: -32768,
      layout: 'zarr',
      tileSize: [8, 8],
      files: [{ path: 'rasters/chirps/2023-abc.zarr', periods: ['2023-01-01'] }],
    };
    const catalog = { ...EMPTY, rasters: [held] };
    const added = planRasterLayer(chirps(2024), rain, catalog);
    expect(added.kept).toBe(held);
    expect(added).toMatchObject({ layout: 'zarr', scale: 0.1, offset: 0 });
    expect(added.grid).toEqual({ west: 17, north: -30, resX: 0.05, resY: 0.05, width: 140, height: 100 });
    // Every year it holds given again: rebuilt whole, from the inputs' own grid.
    expect(planRasterLayer([...chirps(2023), ...chirps(2024)], rain, catalog).kept).toBeUndefined();
    expect(planRasterLayer(chirps(2024), { ...rain, replace: true }, catalog)).toMatchObject({
      kept: undefined,
      scale: null,
      grid: null,
    });
  });

  it('refuses what it would have to guess or could not write, before any value is read', () => {
    const noCrs = buildErrorOf(() =>
      planRasterLayer([file('utm.tif', { hasCrs: false })], { dataType: 'x', unit: 'm', timeScale: null }, EMPTY),
    );
    expect(noCrs).toMatchObject({ code: 'invalid_option', option: 'crs' });
    expect(noCrs.message).toMatch(/utm\.tif has no coordinate reference system/);
    expect(
      planRasterLayer(
        [file('utm.tif', { hasCrs: false })],
        { dataType: 'x', unit: 'm', timeScale: null, crs: 'EPSG:32734' },
        EMPTY,
      ).files,
    ).toHaveLength(1);
    const twice = buildErrorOf(() => planRasterLayer([...chirps(2024).slice(0, 2), chirps(2024)[0]!], rain, EMPTY));
    expect(twice.message).toMatch(/Period 2024-01-01 appears in more than one input band/);
    expect(
      buildErrorOf(() => planRasterLayer(chirps(2024), { ...rain, layout: 'zarr', tileSize: 32 }, EMPTY)),
    ).toMatchObject({ option: 'tileSize' });
    expect(
      buildErrorOf(() =>
        planRasterLayer([file('d.tif')], { dataType: 'd', unit: 'm', timeScale: null, layout: 'zarr' }, EMPTY),
      ),
    ).toMatchObject({ option: 'layout' });
    expect(buildErrorOf(() => planRasterLayer(chirps(2024), { ...rain, tileSize: 20 }, EMPTY))).toMatchObject({
      option: 'tileSize',
    });
    expect(buildErrorOf(() => planRasterLayer([], rain, EMPTY))).toMatchObject({ option: 'inputs' });
    expect(
      buildErrorOf(() => planRasterLayer(chirps(2024), { ...rain, datePattern: 'chirps-v2.0.{yyyy}.{mm}.tif' }, EMPTY))
        .code,
    ).toBe('invalid_option');
  });

  it('puts a stated grid on whole pixels (6.55° at 0.02° is 328 px, not 329)', () => {
    const plan = planRasterLayer(
      [file('a.tif')],
      { dataType: 'a', unit: 'm', timeScale: null, grid: { bbox: [17.5, -34.9, 24.05, -30.4], resolution: 0.02 } },
      EMPTY,
    );
    expect(plan.grid).toMatchObject({ west: 17.5, north: -30.4, width: 328, height: 225 });
  });
});
