/**
 * NetCDF read directly: CF files written by a different tool
 * than the one that reads them — Unidata's own `ncgen` (netcdf-bin) from
 * CDL text, as classic, 64-bit offset and NetCDF-4 (deflate + shuffle,
 * chunked) — built with `climate-query build`, and every answer compared
 * with native GDAL's read of the same file (gdal-bin's netCDF driver,
 * `gdallocationinfo`, scale/offset/nodata from `gdalinfo -json`) and with
 * the arrays the CDL was written from. Every CF attribute the build reads
 * is exercised: time units and calendars (standard, noleap, 360_day),
 * scale_factor/add_offset, _FillValue (integer and NaN), missing_value,
 * valid_range, _Unsigned, a level chosen by value, latitudes either way up,
 * 0–360° longitudes, units (K → °C for the temp family). And the files it
 * must refuse, with what to do.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { hash } from '../helpers/raster-fixture.ts';
import { cli } from '../helpers/cli.ts';

const has = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const TOOLS = has('ncgen') && has('gdallocationinfo') && has('gdalinfo');

/** One CDL variable. */
interface CdlVar {
  type: 'byte' | 'short' | 'int' | 'float' | 'double';
  dims: string[];
  attrs: Record<string, string | number | number[]>;
  data: ArrayLike<number>;
}

/** CDL text of a file; attribute numbers are typed like the variable (CF wants _FillValue etc. in its type). */
function cdl(name: string, dims: Record<string, number | 'UNLIMITED'>, vars: Record<string, CdlVar>): string {
  const suffix: Record<CdlVar['type'], string> = { byte: 'b', short: 's', int: '', float: 'f', double: '' };
  // CDL wants a decimal point before a float's "f" (150.f, not 150f).
  const num = (x: number, t: CdlVar['type']) =>
    Number.isNaN(x)
      ? t === 'float'
        ? 'NaNf'
        : 'NaN'
      : `${x}${t === 'float' && !/[.e]/.test(String(x)) ? '.' : ''}${suffix[t]}`;
  const lines = [
    `netcdf ${name} {`,
    'dimensions:',
    ...Object.entries(dims).map(([d, n]) => `  ${d} = ${n} ;`),
    'variables:',
  ];
  for (const [v, def] of Object.entries(vars)) {
    lines.push(`  ${def.type} ${v}(${def.dims.join(', ')}) ;`);
    for (const [a, value] of Object.entries(def.attrs)) {
      const typed = ['_FillValue', 'missing_value', 'valid_range', 'valid_min', 'valid_max'].includes(a);
      const text =
        typeof value === 'string'
          ? JSON.stringify(value)
          : ([] as number[])
              .concat(value)
              .map((x) => (typed ? num(x, def.type) : String(x)))
              .join(', ');
      lines.push(`    ${v}:${a} = ${text} ;`);
    }
  }
  lines.push('data:');
  for (const [v, def] of Object.entries(vars))
    lines.push(`  ${v} = ${Array.from(def.data, (x) => num(x, def.type)).join(', ')} ;`);
  lines.push('}');
  return lines.join('\n');
}

async function ncgen(
  dir: string,
  name: string,
  kind: 'classic' | '64-bit offset' | 'netCDF-4',
  text: string,
): Promise<string> {
  const path = join(dir, `${name}.nc`);
  await writeFile(join(dir, `${name}.cdl`), text);
  execFileSync('ncgen', ['-k', kind, '-o', path, join(dir, `${name}.cdl`)]);
  return path;
}

const range = <T = number>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** GDAL's values (scaled, null at nodata) at file coordinates for one band of `NETCDF:"file":variable`. */
function gdalValues(
  file: string,
  variable: string,
  band: number,
  coords: Array<[number, number]>,
): Array<number | null> {
  const ds = `NETCDF:"${file}":${variable}`;
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', ds], { encoding: 'utf8' })) as {
    bands: Array<{ noDataValue?: number | string; scale?: number; offset?: number }>;
  };
  const b = info.bands[band - 1]!;
  const out = execFileSync('gdallocationinfo', ['-valonly', '-geoloc', '-b', String(band), ds], {
    input: `${coords.map(([x, y]) => `${x} ${y}`).join('\n')}\n`,
    encoding: 'utf8',
  });
  return out
    .trimEnd()
    .split('\n')
    .map((line) => {
      const z = Number(line.trim());
      if (line.trim() === '' || Number.isNaN(z)) return null;
      if (b.noDataValue !== undefined && (Number(b.noDataValue) === z || (b.noDataValue === 'nan' && Number.isNaN(z))))
        return null;
      return z * (b.scale ?? 1) + (b.offset ?? 0);
    });
}

// The grids: Western Cape at 0.25° with latitudes ascending (south first, as many CF writers do), and a
// global 2.5° grid in 0–360° longitudes with latitudes descending.
const WC = { lon0: 17.875, lat0: -34.875, step: 0.25, nx: 24, ny: 16 };
const GL = { nx: 144, ny: 72 };
const glLon = (i: number) => 1.25 + 2.5 * i; // 1.25 … 358.75
const glLat = (j: number) => 88.75 - 2.5 * j; // north first
const sea = (c: number, r: number) => c + r < 4; // south-west corner: no data

/** Monthly Tmin (°C) at WC pixel (c, r), month m (0-based), level z. */
const tminC = (c: number, r: number, m: number, z = 0) =>
  4 + 6 * Math.cos((m * Math.PI) / 6) + 0.3 * c - 0.2 * r - 8 * z + 2 * hash(c, r, m);

let root: string;
let dataset: string;
let engine: ClimateEngine;
const files: Record<string, string> = {};
const WC_POINTS: Array<[number, number]> = range(40, (i) => [
  WC.lon0 - 0.125 + 0.05 + (WC.nx * WC.step - 0.1) * hash(i, 1, 7),
  WC.lat0 - 0.125 + 0.05 + (WC.ny * WC.step - 0.1) * hash(i, 2, 7),
]);

async function post(endpoint: 'point' | 'polygon', body: unknown, on = engine) {
  const res = await on.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(body) });
  return { status: res.status, body: res.body as Record<string, unknown> };
}
/** /api/point/ for any number of points, ten per request (the contract's limit). */
async function points(pts: Array<[number, number]>, body: Record<string, unknown>) {
  const all: Record<string, unknown> = {};
  for (let i = 0; i < pts.length; i += 10) {
    const res = await post('point', {
      ...body,
      wkts: pts
        .slice(i, i + 10)
        .map(wkt)
        .join(';'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    Object.assign(all, res.body);
  }
  return { status: 200, body: all };
}
const wkt = (p: [number, number]) => `POINT (${p[0]} ${p[1]})`;

describe.skipIf(!TOOLS)(
  'NetCDF inputs (needs ncgen from netcdf-bin and GDAL from gdal-bin; .ci/run installs both)',
  () => {
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'climate-query-netcdf-'));
      dataset = join(root, 'dataset');
      await mkdir(dataset);
      const lon = range(WC.nx, (i) => WC.lon0 + WC.step * i);
      const lat = range(WC.ny, (j) => WC.lat0 + WC.step * j);
      const coords = {
        lat: { type: 'double', dims: ['lat'], attrs: { units: 'degrees_north', standard_name: 'latitude' }, data: lat },
        lon: { type: 'double', dims: ['lon'], attrs: { units: 'degrees_east', standard_name: 'longitude' }, data: lon },
      } satisfies Record<string, CdlVar>;
      // 1. Classic: monthly Tmin in K, packed as short (scale 0.01, offset 273.15), _FillValue at sea, one
      //    missing_value pixel; standard calendar in hours; mid-month times.
      const hoursTo = (y: number, m: number) => (Date.UTC(y, m, 15, 12) - Date.UTC(1900, 0, 1)) / 3_600_000;
      const tasPacked: number[] = [];
      for (let m = 0; m < 12; m++) {
        for (let r = 0; r < WC.ny; r++) {
          for (let c = 0; c < WC.nx; c++) {
            // File rows run south to north: row r of the file is latitude lat[r]; the north-up row is ny-1-r.
            const nr = WC.ny - 1 - r;
            tasPacked.push(sea(c, nr) ? -32767 : c === 10 && nr === 5 ? -9999 : Math.round(tminC(c, nr, m) / 0.01));
          }
        }
      }
      files.classic = await ncgen(
        root,
        'tasmin_2023',
        'classic',
        cdl(
          'tasmin',
          { time: 'UNLIMITED', lat: WC.ny, lon: WC.nx },
          {
            time: {
              type: 'double',
              dims: ['time'],
              attrs: { units: 'hours since 1900-01-01 00:00:00', calendar: 'standard', standard_name: 'time' },
              data: range(12, (m) => hoursTo(2023, m)),
            },
            ...coords,
            tasmin: {
              type: 'short',
              dims: ['time', 'lat', 'lon'],
              attrs: {
                units: 'K',
                long_name: 'Daily minimum near-surface air temperature',
                scale_factor: 0.01,
                add_offset: 273.15,
                _FillValue: -32767,
                missing_value: -9999,
              },
              data: tasPacked,
            },
          },
        ),
      );

      // 2. NetCDF-4, deflate + shuffle, chunked: air temperature on 3 pressure levels, noleap calendar in days,
      //    float with a NaN _FillValue, valid_range masking one pixel; latitudes descending.
      const plev = [1000, 850, 500];
      const ta: number[] = [];
      for (let m = 0; m < 3; m++) {
        for (let z = 0; z < 3; z++) {
          for (let r = 0; r < WC.ny; r++) {
            for (let c = 0; c < WC.nx; c++)
              ta.push(sea(c, r) ? NaN : c === 3 && r === 9 ? 500 : Math.fround(tminC(c, r, m, z) + 273.15));
          }
        }
      }
      const taText = cdl(
        'ta',
        { time: 3, plev: 3, lat: WC.ny, lon: WC.nx },
        {
          time: {
            type: 'double',
            dims: ['time'],
            attrs: { units: 'days since 2000-01-01', calendar: 'noleap', axis: 'T' },
            data: [8409.5, 8440, 8469.5],
          },
          plev: { type: 'float', dims: ['plev'], attrs: { units: 'hPa', axis: 'Z' }, data: plev },
          lat: { ...coords.lat, data: [...lat].reverse() },
          lon: coords.lon,
          ta: {
            type: 'float',
            dims: ['time', 'plev', 'lat', 'lon'],
            attrs: { units: 'K', _FillValue: NaN, valid_range: [150, 350] },
            data: ta,
          },
        },
      ).replace(
        'ta:units',
        'ta:_DeflateLevel = 5 ;\n    ta:_Shuffle = "true" ;\n    ta:_ChunkSizes = 1, 1, 8, 8 ;\n    ta:units',
      );
      files.nc4 = await ncgen(root, 'ta_2023', 'netCDF-4', taText);

      // 3. 64-bit offset, global 2.5° in 0–360° longitudes, 360_day calendar monthly rain (mm), _Unsigned byte
      //    counts of rain days with 255 as _FillValue.
      const rain: number[] = [];
      for (let m = 0; m < 2; m++)
        for (let j = 0; j < GL.ny; j++)
          for (let i = 0; i < GL.nx; i++) rain.push(j < 3 ? -1 : Math.floor(200 * hash(i, j, m))); // -1 = 255 unsigned = fill
      files.global = await ncgen(
        root,
        'raindays',
        '64-bit offset',
        cdl(
          'raindays',
          { time: 2, lat: GL.ny, lon: GL.nx },
          {
            time: {
              type: 'double',
              dims: ['time'],
              attrs: { units: 'days since 2020-01-01', calendar: '360_day' },
              data: [15, 45],
            },
            lat: { type: 'float', dims: ['lat'], attrs: { units: 'degrees_north' }, data: range(GL.ny, glLat) },
            lon: { type: 'float', dims: ['lon'], attrs: { units: 'degrees_east' }, data: range(GL.nx, glLon) },
            raindays: {
              type: 'byte',
              dims: ['time', 'lat', 'lon'],
              attrs: { units: 'days', _Unsigned: 'true', _FillValue: -1 },
              data: rain,
            },
          },
        ),
      );

      await buildRasterLayer({
        dir: dataset,
        dataType: 'tasmin',
        unit: '°C',
        timeScale: 'monthly',
        extent: 'wc',
        inputs: [files.classic!],
      });
      await buildRasterLayer({
        dir: dataset,
        dataType: 'ta',
        subDataType: 'p850',
        timeScale: 'monthly',
        extent: 'wc',
        level: '850',
        inputs: [files.nc4!],
      });
      await buildRasterLayer({
        dir: dataset,
        dataType: 'raindays',
        timeScale: 'monthly',
        extent: 'globe',
        inputs: [`NETCDF:"${files.global}":raindays`],
      });
      engine = createNodeEngine(dataset);
    }, 300_000);
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('classic, packed short in K: °C answers equal GDAL and the written values, fill and missing_value null', async () => {
      const res = await points(WC_POINTS, {
        dataType: 'tasmin',
        startDate: '2023-01',
        endDate: '2023-12',
        options: { dataExtent: 'wc', timeScale: 'monthly' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      let nulls = 0;
      for (let m = 0; m < 12; m++) {
        const gdal = gdalValues(files.classic!, 'tasmin', m + 1, WC_POINTS);
        WC_POINTS.forEach((p, i) => {
          const got = (res.body[wkt(p)] as Record<string, number | null>)[`2023-${String(m + 1).padStart(2, '0')}-01`];
          const c = Math.floor((p[0] - (WC.lon0 - 0.125)) / WC.step);
          const nr = Math.floor((WC.lat0 - 0.125 + WC.ny * WC.step - p[1]) / WC.step);
          const written = sea(c, nr) || (c === 10 && nr === 5) ? null : Math.round(tminC(c, nr, m) / 0.01) * 0.01;
          if (gdal[i] === null || written === null) {
            expect(got, `${wkt(p)} month ${m + 1}`).toBeNull();
            expect(written).toBeNull();
            // GDAL takes only _FillValue as nodata; CF's missing_value (-9999 packed) is no-data too.
            if (gdal[i] !== null) expect(gdal[i]).toBeCloseTo(-9999 * 0.01 + 273.15, 6);
            nulls++;
          } else {
            expect(got).toBeCloseTo(gdal[i]! - 273.15, 6);
            expect(got).toBeCloseTo(written, 6);
          }
        });
      }
      expect(nulls).toBeGreaterThan(0);
    });

    it('NetCDF-4 (deflate, chunks): level 850 hPa of a 4-D variable, noleap dates, NaN fill and valid_range null, north-first rows', async () => {
      const res = await points(WC_POINTS, {
        dataType: 'ta',
        startDate: '2023-01',
        endDate: '2023-03',
        options: { subDataType: 'p850', dataExtent: 'wc', timeScale: 'monthly' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      let nulls = 0;
      for (let m = 0; m < 3; m++) {
        // GDAL numbers the bands of (time, plev) with plev fastest: band = time × 3 + level + 1.
        const gdal = gdalValues(files.nc4!, 'ta', m * 3 + 1 + 1, WC_POINTS);
        WC_POINTS.forEach((p, i) => {
          const got = (res.body[wkt(p)] as Record<string, number | null>)[`2023-0${m + 1}-01`];
          if (gdal[i] === null) {
            expect(got).toBeNull();
            nulls++;
          } else {
            // The layer stores K at the finest step that fits Int16 (0.01).
            expect(got, `${wkt(p)} 2023-0${m + 1}`).toBeCloseTo(Math.round(gdal[i]! / 0.01) * 0.01, 6);
          }
        });
      }
      expect(nulls).toBeGreaterThan(0);
      // valid_range [150, 350] K: the 500 K pixel (c 3, r 9) is no-data, for GDAL too.
      const odd: [number, number] = [WC.lon0 + 3 * WC.step, WC.lat0 + (WC.ny - 1 - 9) * WC.step];
      const one = await post('point', {
        wkts: wkt(odd),
        dataType: 'ta',
        startDate: '2023-01',
        endDate: '2023-01',
        options: { subDataType: 'p850', dataExtent: 'wc', timeScale: 'monthly' },
      });
      expect(one.body).toEqual({ [wkt(odd)]: { '2023-01-01': null } });
      expect(gdalValues(files.nc4!, 'ta', 2, [odd])[0]).toBeNull();
    });

    it('0–360° longitudes and a 360_day calendar: a global grid stored in −180…180 equals GDAL at the same places', async () => {
      const pts: Array<[number, number]> = range(30, (i) => [-179 + 358 * hash(i, 3, 9), -80 + 160 * hash(i, 4, 9)]);
      const res = await points(pts, {
        dataType: 'raindays',
        startDate: '2020-01',
        endDate: '2020-02',
        options: { dataExtent: 'globe', timeScale: 'monthly' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (let m = 0; m < 2; m++) {
        const gdal = gdalValues(
          files.global!,
          'raindays',
          m + 1,
          pts.map(([x, y]) => [x < 0 ? x + 360 : x, y]),
        );
        pts.forEach((p, i) => {
          const got = (res.body[wkt(p)] as Record<string, number | null>)[`2020-0${m + 1}-01`];
          const unsigned = gdal[i] === null ? null : gdal[i]! < 0 ? gdal[i]! + 256 : gdal[i]!;
          expect(got, `${wkt(p)} month ${m + 1}`).toBe(unsigned === 255 ? null : unsigned);
        });
      }
      const layer = (await (await import('node:fs/promises')).readFile(join(dataset, 'catalog.json'), 'utf8')).includes(
        '"globe"',
      );
      expect(layer).toBe(true);
      // _Unsigned byte fill: the three northernmost rows are no-data.
      const north = await post('point', {
        wkts: 'POINT (10 85)',
        dataType: 'raindays',
        startDate: '2020-01',
        endDate: '2020-01',
        options: { dataExtent: 'globe', timeScale: 'monthly' },
      });
      expect(north.body).toEqual({ 'POINT (10 85)': { '2020-01-01': null } });
    });

    it("the CLI takes the file's unit and dates, and says what it read", async () => {
      const out = join(root, 'cli-dataset');
      const r = await cli([
        'build',
        '--out',
        out,
        '--layer',
        'tmin_k',
        '--time-scale',
        'monthly',
        '--extent',
        'wc',
        files.classic!,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /tasmin_2023\.nc \(classic\): tasmin, K, 12 time steps 2023-01 … 2023-12 \(gregorian calendar\)/,
      );
      expect(r.stdout).toMatch(/unit: +K/);
      // The variable's CF long_name describes the layer when no --description is given.
      expect(r.stdout).toMatch(/^tmin_k — Daily minimum near-surface air temperature$/m);
      expect(r.stdout).toMatch(/12: 2023-01-01, 2023-02-01/);
    });

    it('refuses what it would have to guess, saying what to pass', async () => {
      const refused = async (o: Partial<Parameters<typeof buildRasterLayer>[0]>, re: RegExp) => {
        await expect(
          buildRasterLayer({
            dir: join(root, 'refused'),
            dataType: 'x',
            unit: 'K',
            timeScale: 'monthly',
            extent: 'wc',
            inputs: [files.nc4!],
            ...o,
          }),
        ).rejects.toThrow(re);
      };
      await refused({}, /4 levels|3 levels along plev \(1000, 850, 500 hPa\); choose one with --level VALUE/);
      await refused({ level: '700' }, /--level 700 is not a level of ta along plev \(1000, 850, 500 hPa\)/);
      await refused(
        { level: '850', timeScale: 'annual' },
        /time steps 0 and 1 \(2023-01-15 and 2023-02-15\) are the same annual period 2023/,
      );
      await refused(
        { level: '850', variable: 'pr' },
        /has no variable "pr"; its gridded variables: ta\(time, plev, lat, lon\)/,
      );
      await refused(
        { level: '850', unit: 'mm' },
        /is in K, and the layer's unit is mm; the build converts only K ↔ °C/,
      );
      const d360 = await ncgen(
        root,
        'd360',
        'classic',
        cdl(
          'd',
          { time: 2, lat: 2, lon: 2 },
          {
            time: {
              type: 'double',
              dims: ['time'],
              attrs: { units: 'days since 2020-01-01', calendar: '360_day' },
              data: [58, 59],
            },
            lat: { type: 'double', dims: ['lat'], attrs: { units: 'degrees_north' }, data: [-34, -33] },
            lon: { type: 'double', dims: ['lon'], attrs: { units: 'degrees_east' }, data: [18, 19] },
            v: { type: 'float', dims: ['time', 'lat', 'lon'], attrs: { units: 'K' }, data: [1, 2, 3, 4, 5, 6, 7, 8] },
          },
        ),
      );
      await refused(
        { inputs: [d360], extent: 'box', timeScale: 'daily' },
        /time step 1 is 2020-02-30 in the file's 360_day calendar, a day real calendars have not/,
      );
      // Months since: not a date.
      const months = await ncgen(
        root,
        'months',
        'classic',
        cdl(
          'm',
          { time: 1, lat: 2, lon: 2 },
          {
            time: { type: 'double', dims: ['time'], attrs: { units: 'months since 2000-01-01' }, data: [3] },
            lat: { type: 'double', dims: ['lat'], attrs: { units: 'degrees_north' }, data: [-34, -33] },
            lon: { type: 'double', dims: ['lon'], attrs: { units: 'degrees_east' }, data: [18, 19] },
            v: { type: 'float', dims: ['time', 'lat', 'lon'], attrs: { units: 'K' }, data: [1, 2, 3, 4] },
          },
        ),
      );
      await refused({ inputs: [months], extent: 'box' }, /"months since" is not a date.*State the dates with --dates/);
      // … and with the dates stated, the file builds: its time axis is not read.
      const stated = await buildRasterLayer({
        dir: join(root, 'stated'),
        dataType: 'x',
        unit: 'K',
        timeScale: 'monthly',
        extent: 'box',
        inputs: [months],
        dates: ['2000-04'],
      });
      expect(stated.layer.files.map((f) => f.periods)).toEqual([['2000-04-01']]);
      const julian = await ncgen(
        root,
        'julian',
        'classic',
        cdl(
          'j',
          { time: 1, lat: 2, lon: 2 },
          {
            time: {
              type: 'double',
              dims: ['time'],
              attrs: { units: 'days since 2000-01-01', calendar: 'julian' },
              data: [3],
            },
            lat: { type: 'double', dims: ['lat'], attrs: { units: 'degrees_north' }, data: [-34, -33] },
            lon: { type: 'double', dims: ['lon'], attrs: { units: 'degrees_east' }, data: [18, 19] },
            v: { type: 'float', dims: ['time', 'lat', 'lon'], attrs: { units: 'K' }, data: [1, 2, 3, 4] },
          },
        ),
      );
      await refused({ inputs: [julian], extent: 'box' }, /calendar "julian", which cannot be mapped/);
      const uneven = await ncgen(
        root,
        'gauss',
        'netCDF-4',
        cdl(
          'g',
          { lat: 3, lon: 2 },
          {
            lat: { type: 'double', dims: ['lat'], attrs: { units: 'degrees_north' }, data: [-34, -33.2, -33] },
            lon: { type: 'double', dims: ['lon'], attrs: { units: 'degrees_east' }, data: [18, 19] },
            v: { type: 'float', dims: ['lat', 'lon'], attrs: { units: 'K' }, data: [1, 2, 3, 4, 5, 6] },
          },
        ),
      );
      await refused({ inputs: [uneven], extent: 'box', timeScale: null }, /axis lat is not evenly spaced/);
      const xy = await ncgen(
        root,
        'utm',
        'classic',
        cdl(
          'u',
          { y: 2, x: 2 },
          {
            y: {
              type: 'double',
              dims: ['y'],
              attrs: { units: 'm', standard_name: 'projection_y_coordinate' },
              data: [6250000, 6251000],
            },
            x: {
              type: 'double',
              dims: ['x'],
              attrs: { units: 'm', standard_name: 'projection_x_coordinate' },
              data: [300000, 301000],
            },
            v: { type: 'float', dims: ['y', 'x'], attrs: { units: 'K' }, data: [1, 2, 3, 4] },
          },
        ),
      );
      await refused(
        { inputs: [xy], extent: 'box', timeScale: null },
        /projected x\/y grid without a grid_mapping\. Say its CRS with --crs/,
      );
      await writeFile(join(root, 'cut.nc'), Buffer.from('CDF\x01\x00\x00'));
      await refused(
        { inputs: [join(root, 'cut.nc')], timeScale: null },
        /cut\.nc starts like NetCDF but its header cannot be read/,
      );
      await writeFile(join(root, 'cdf5.nc'), Buffer.from('CDF\x05\x00\x00\x00\x00'));
      await refused({ inputs: [join(root, 'cdf5.nc')], timeScale: null }, /CDF-5.*nccopy -k nc4/);
      await refused({ inputs: [join(root, 'nowhere', 'x.nc')] }, /Input .*nowhere\/x\.nc does not exist/);
    });

    it('a projected x/y grid states its CRS with --crs, is reprojected, and answers its values', async () => {
      const xy = await ncgen(
        root,
        'utm-ok',
        'netCDF-4',
        cdl(
          'u',
          { y: 20, x: 30 },
          {
            y: {
              type: 'double',
              dims: ['y'],
              attrs: { units: 'm', standard_name: 'projection_y_coordinate' },
              data: range(20, (j) => 6_250_500 - 1000 * j),
            },
            x: {
              type: 'double',
              dims: ['x'],
              attrs: { units: 'm', standard_name: 'projection_x_coordinate' },
              data: range(30, (i) => 300_500 + 1000 * i),
            },
            v: {
              type: 'float',
              dims: ['y', 'x'],
              attrs: { units: 'mm' },
              data: range(600, (k) => 10 + (k % 30) * 0.5 + Math.floor(k / 30) * 0.25),
            },
          },
        ),
      );
      const r = await cli([
        'build',
        '--out',
        join(root, 'utm-dataset'),
        '--layer',
        'et0',
        '--time-scale',
        'none',
        '--extent',
        'utm',
        '--crs',
        'EPSG:32734',
        '--resampling',
        'near',
        xy,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/utm-ok\.nc \(netCDF-4\): v, mm, 30 × 20 px/);
      expect(r.stderr).toMatch(/reprojecting .*utm-ok\.nc to EPSG:4326/);
      // Inside the grid, nearest-neighbour reprojection answers one of the file's values (10 … 29.75 by row and column).
      const utm = createNodeEngine(join(root, 'utm-dataset'));
      const inside = await post(
        'point',
        { wkts: 'POINT (18.85 -33.87)', dataType: 'et0', options: { dataExtent: 'utm' } },
        utm,
      );
      expect(inside.status, JSON.stringify(inside.body)).toBe(200);
      const v = inside.body['POINT (18.85 -33.87)'] as number;
      expect(v).toBeGreaterThanOrEqual(10);
      expect(v).toBeLessThanOrEqual(29.75);
      expect((v - 10) / 0.25).toBeCloseTo(Math.round((v - 10) / 0.25), 6);
    });
  },
);
