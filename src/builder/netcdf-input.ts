/**
 * Reads one variable of a CF NetCDF file (classic or NetCDF-4) as the
 * raster build's input: a north-up grid whose band descriptions are the
 * dates the file's time axis states, written as a GeoTIFF next to the
 * build's other work files, so the rest of the build treats it like any
 * GeoTIFF a user brings.
 *
 * What the file declares is read, never guessed (CF conventions 1.x):
 * - axes from coordinate variables: longitude/latitude by `units`
 *   (degrees_east/north), `standard_name` or `axis`; projected x/y (metres)
 *   need a CRS from the variable's `grid_mapping` (`crs_wkt`,
 *   `spatial_ref`) or `--crs`. Latitudes either way up; 0–360° longitudes
 *   are turned to −180…180. Axes must be evenly spaced.
 * - time from the CF time coordinate (cf-time.ts); one other leading
 *   dimension is a level, chosen by its coordinate value with `--level`.
 * - values: `scale_factor`, `add_offset`, `_Unsigned`; `_FillValue`,
 *   `missing_value`, `valid_min`/`valid_max`/`valid_range` and NaN are
 *   no-data (the netCDF default fill too when no `_FillValue` is stated).
 * - `units`: the layer's unit when none is given; K ↔ °C converted when the
 *   layer's unit says °C and the file K (the temp family, or `--unit °C`).
 */
import { CALENDARS, daysInMonth } from '../contract/calendars.ts';
import { join } from 'node:path';
import { BuildError } from './build-error.ts';
import { isoDate, isRealDate, parseCfTime, type CalendarDate } from './cf-time.ts';
import { openNetcdf, sniffNetcdf, type AttributeValue, type NcFile, type NcVariable } from './netcdf-file.ts';
import { writeInputGeoTiff } from './raster-build-input.ts';
import type { RasterTimeScale } from '../contract/raster-layers.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';

export { sniffNetcdf } from './netcdf-file.ts';

/** What the build says about the variable to read. */
export interface NetcdfReadOptions {
  /** Variable name; may be left out when the file has exactly one gridded variable. */
  variable?: string;
  /** Coordinate value of the level to read (e.g. "850"), for a variable with a level dimension. */
  level?: string;
  /** The layer's time scale (null: undated): how band dates are written. */
  timeScale: RasterTimeScale | null;
  /** The layer's unit, when stated; values are converted to it from the file's `units` where a rule is known. */
  unit?: string;
  /** CRS of a projected x/y grid that states none. */
  crs?: string;
  /** True when the build states the dates (--dates, --date-pattern): the time axis is then not read as dates. */
  datesStated?: boolean;
}

/** A NetCDF variable turned into a build input. */
export interface NetcdfInput {
  /** The GeoTIFF written (Float32, NaN no-data, band descriptions = dates). */
  tif: string;
  /** Band dates in the time scale's form ("" for undated). */
  descriptions: string[];
  /** The unit of the values written: the stated one, else the file's `units`. */
  unit: string | undefined;
  /** The variable's CF `long_name` (else `standard_name`), the layer's description when none is given. */
  longName: string | undefined;
  /** One line for the build log. */
  summary: string;
}

/** `NETCDF:"file.nc":variable` (GDAL's syntax, which users copy) split into path and variable. */
export function parseNetcdfSyntax(input: string): { path: string; variable?: string } {
  const m = /^NETCDF:"?(.+?)"?:([A-Za-z_][\w.@+-]*)$/i.exec(input);
  return m ? { path: m[1]!, variable: m[2]! } : { path: input };
}

/** Reads `path` (which `sniffNetcdf` recognised) and writes `<work>/<n>.tif`. `shown` names the file in messages. */
export async function netcdfToGeoTiff(
  path: string,
  shown: string,
  work: string,
  n: number,
  o: NetcdfReadOptions,
): Promise<NetcdfInput> {
  const kind = await sniffNetcdf(path);
  if (!kind) throw new BuildError('unreadable_input', `${shown} is not a NetCDF file.`, { file: shown });
  const file = await openNetcdf(path, kind, shown);
  try {
    return await convert(file, shown, join(work, `netcdf-${n}.tif`), o);
  } finally {
    file.close();
  }
}

type Axis = 'X' | 'Y' | 'T' | 'Z';

const text = (a: AttributeValue | undefined): string | undefined => (typeof a === 'string' ? a.trim() : undefined);
const nums = (a: AttributeValue | undefined): number[] | undefined =>
  Array.isArray(a) && a.length > 0 ? a : undefined;

function axisOf(v: NcVariable | undefined): { axis: Axis; geographic: boolean } | null {
  if (!v) return null;
  const units = (text(v.attributes.units) ?? '').toLowerCase();
  const std = (text(v.attributes.standard_name) ?? '').toLowerCase();
  const axis = (text(v.attributes.axis) ?? '').toUpperCase();
  if (/^degrees?_?e(ast)?$/.test(units) || std === 'longitude') return { axis: 'X', geographic: true };
  if (/^degrees?_?n(orth)?$/.test(units) || std === 'latitude') return { axis: 'Y', geographic: true };
  if (/\ssince\s/.test(units) || std === 'time' || axis === 'T') return { axis: 'T', geographic: false };
  if (axis === 'X' || std === 'projection_x_coordinate' || std === 'grid_longitude')
    return { axis: 'X', geographic: false };
  if (axis === 'Y' || std === 'projection_y_coordinate' || std === 'grid_latitude')
    return { axis: 'Y', geographic: false };
  return { axis: 'Z', geographic: false };
}

function coordinate(file: NcFile, dim: string): NcVariable | undefined {
  return file.variables.find((v) => v.name === dim && v.dims.length === 1 && v.dims[0] === dim);
}

function pickVariable(file: NcFile, shown: string, wanted: string | undefined): NcVariable {
  const gridded = file.variables.filter((v) => {
    if (v.dims.length < 2) return false;
    const [y, x] = v.dims.slice(-2).map((d) => axisOf(coordinate(file, d))?.axis);
    return y === 'Y' && x === 'X';
  });
  const list = (vs: NcVariable[]) => vs.map((v) => `${v.name}(${v.dims.join(', ')})`).join(', ') || 'none';
  if (wanted !== undefined) {
    const v = file.variables.find((x) => x.name === wanted);
    if (!v)
      throw new BuildError(
        'invalid_option',
        `${shown} has no variable "${wanted}"; its gridded variables: ${list(gridded)}.`,
        { option: 'variable', file: shown },
      );
    return v;
  }
  if (gridded.length === 1) return gridded[0]!;
  throw new BuildError(
    'invalid_option',
    gridded.length === 0
      ? `${shown} has no variable on a latitude/longitude (or x/y) grid whose last two dimensions have coordinate variables; its variables: ${list(file.variables)}. Name one with --variable.`
      : `${shown} holds several gridded variables: ${list(gridded)}. Say which with --variable NAME.`,
    { option: 'variable', file: shown },
  );
}

/** An evenly spaced axis: first value and step, after `order` is applied; refuses uneven spacing. */
function evenAxis(values: number[], name: string, shown: string): { first: number; step: number } {
  const n = values.length;
  if (n < 2)
    throw new BuildError(
      'invalid_input',
      `${shown}: axis ${name} has ${n} value; a grid needs at least two along each axis to know its cell size.`,
      { file: shown },
    );
  const step = (values[n - 1]! - values[0]!) / (n - 1);
  const worst = values.reduce((w, v, i) => Math.max(w, Math.abs(v - (values[0]! + i * step))), 0);
  if (!(step !== 0) || worst > 1e-3 * Math.abs(step)) {
    throw new BuildError(
      'invalid_input',
      `${shown}: axis ${name} is not evenly spaced (off by up to ${worst.toPrecision(3)} of a ${Math.abs(step).toPrecision(6)} step), e.g. a Gaussian grid; regrid it to a regular grid first (e.g. \`cdo remapbil,r360x180\`).`,
      { file: shown },
    );
  }
  return { first: values[0]!, step };
}

/** Unit spellings compared as one (UDUNITS and CF spell °C several ways). */
function unitKey(u: string): string {
  const s = u.trim().toLowerCase().replace(/\s+/g, ' ');
  if (['k', 'kelvin', 'degk', 'deg_k', 'degree_kelvin', 'degrees_kelvin', 'degrees k'].includes(s)) return 'K';
  if (['°c', 'degc', 'deg_c', 'celsius', 'degree_celsius', 'degrees_celsius', 'degrees c', 'degree c', 'c'].includes(s))
    return '°C';
  return s;
}

/** value_in_target = value × a + b, or null when no rule is known. */
export function unitConversion(from: string, to: string): { a: number; b: number } | null {
  const [f, t] = [unitKey(from), unitKey(to)];
  if (f === t) return { a: 1, b: 0 };
  if (f === 'K' && t === '°C') return { a: 1, b: -273.15 };
  if (f === '°C' && t === 'K') return { a: 1, b: 273.15 };
  return null;
}

export function periodKey(d: CalendarDate, scale: RasterTimeScale | null): string {
  if (scale === null) return '';
  // The period holding the date, on the scale's calendar (contract/calendars.ts): mid-month CF times fall in
  // their month. A 360-day calendar's 30 February is in February's last dekad, not in March (daily layers refuse it above).
  const calendar = CALENDARS[TIME_SCALES[scale].calendar];
  const day = Math.min(d.day, daysInMonth(d.year, d.month));
  return calendar.requestDateOf(calendar.keyOf(calendar.ordinalOfMs(Date.UTC(d.year, d.month - 1, day))));
}

async function convert(file: NcFile, shown: string, tif: string, o: NetcdfReadOptions): Promise<NetcdfInput> {
  const v = pickVariable(file, shown, o.variable);
  const axes = v.dims.map((d) => ({ dim: d, coord: coordinate(file, d), kind: axisOf(coordinate(file, d)) }));
  const [ya, xa] = axes.slice(-2);
  if (v.dims.length < 2 || ya?.kind?.axis !== 'Y' || xa?.kind?.axis !== 'X') {
    throw new BuildError(
      'invalid_input',
      `${shown}: variable ${v.name}(${v.dims.join(', ')}) must end in a latitude (or y) and a longitude (or x) dimension, each with a coordinate variable (CF: units degrees_north/degrees_east or axis Y/X). ` +
        (ya?.kind?.axis === 'X' && xa?.kind?.axis === 'Y'
          ? 'Its axes are in (x, y) order: reorder them first, e.g. `ncpdq -a time,lat,lon`.'
          : 'Curvilinear grids (2-D latitude/longitude) must be regridded first.'),
      { file: shown },
    );
  }
  const leading = axes.slice(0, -2);
  const timeAxes = leading.filter((a) => a.kind?.axis === 'T');
  const levelAxes = leading.filter((a) => a.kind?.axis !== 'T');
  if (timeAxes.length > 1 || levelAxes.length > 1) {
    throw new BuildError(
      'invalid_input',
      `${shown}: variable ${v.name}(${v.dims.join(', ')}) has more leading dimensions than one time and one level; select what to build first (e.g. \`ncks -d\`).`,
      { file: shown },
    );
  }

  // Level: chosen by its coordinate value; a level dimension of one is that level.
  const levelAxis = levelAxes[0];
  let levelIndex = 0;
  let levelNote = '';
  if (levelAxis) {
    const size = v.shape[v.dims.indexOf(levelAxis.dim)]!;
    const values = levelAxis.coord ? Array.from(file.values(levelAxis.coord.name)) : null;
    const unit = levelAxis.coord ? (text(levelAxis.coord.attributes.units) ?? '') : '';
    const listed = values ? values.map(String).join(', ') + (unit ? ` ${unit}` : '') : `indices 0–${size - 1}`;
    if (o.level === undefined) {
      if (size > 1)
        throw new BuildError(
          'invalid_option',
          `${shown}: variable ${v.name} has ${size} levels along ${levelAxis.dim} (${listed}); choose one with --level VALUE.`,
          { option: 'level', file: shown },
        );
    } else {
      const want = Number(o.level);
      // Without a coordinate variable the level is its index along the dimension.
      const at = values
        ? values.findIndex((x) => Math.abs(x - want) <= 1e-6 * Math.max(1, Math.abs(want)))
        : Number.isInteger(want) && want >= 0 && want < size
          ? want
          : -1;
      if (o.level.trim() === '' || !Number.isFinite(want) || at < 0) {
        throw new BuildError(
          'invalid_option',
          `${shown}: --level ${o.level} is not a level of ${v.name} along ${levelAxis.dim} (${listed}).`,
          { option: 'level', file: shown },
        );
      }
      levelIndex = at;
    }
    levelNote = `, level ${levelAxis.dim} = ${values ? values[levelIndex] : levelIndex}${unit ? ` ${unit}` : ''}`;
  } else if (o.level !== undefined) {
    throw new BuildError(
      'invalid_option',
      `${shown}: variable ${v.name}(${v.dims.join(', ')}) has no level dimension; leave out --level.`,
      { option: 'level', file: shown },
    );
  }

  // Time: the dates the CF time axis states, in the layer's time-scale form; one band per time step.
  const timeAxis = timeAxes[0];
  const times = timeAxis ? v.shape[v.dims.indexOf(timeAxis.dim)]! : 1;
  let descriptions: string[] = [''];
  let timeNote = '';
  if (timeAxis && o.datesStated) {
    descriptions = Array.from({ length: times }, () => '');
    timeNote = `, ${times} time step${times === 1 ? '' : 's'} (dates as stated)`;
  } else if (timeAxis) {
    const coord = timeAxis.coord!;
    const units = text(coord.attributes.units);
    if (!units || !/\ssince\s/.test(units)) {
      throw new BuildError(
        'invalid_input',
        `${shown}: time coordinate ${coord.name} has no "<unit> since <date>" units; state the dates with --dates.`,
        { file: shown },
      );
    }
    const axis = parseCfTime(units, text(coord.attributes.calendar), `${shown} variable ${coord.name}`);
    const dates = Array.from(file.values(coord.name), (t) => axis.dateOf(t));
    if (o.timeScale !== null && TIME_SCALES[o.timeScale].calendar === 'day') {
      const unreal = dates.findIndex((d) => !isRealDate(d));
      if (unreal >= 0) {
        throw new BuildError(
          'invalid_input',
          `${shown}: time step ${unreal} is ${isoDate(dates[unreal]!)} in the file's ${axis.calendar} calendar, a day real calendars have not, so a daily layer cannot hold it. Build it monthly, or convert the calendar first (e.g. \`cdo setcalendar\`).`,
          { file: shown },
        );
      }
    }
    descriptions = dates.map((d) => periodKey(d, o.timeScale));
    if (o.timeScale !== null) {
      const seen = new Map<string, number>();
      descriptions.forEach((key, i) => {
        const j = seen.get(key);
        if (j !== undefined) {
          throw new BuildError(
            'invalid_input',
            `${shown}: time steps ${j} and ${i} (${isoDate(dates[j]!)} and ${isoDate(dates[i]!)}) are the same ${o.timeScale} period ${key}: the file is finer than the layer's time scale. Aggregate it first (e.g. \`cdo daymean\`, \`cdo monmean\`) or build it at its own scale.`,
            { file: shown },
          );
        }
        seen.set(key, i);
      });
    }
    timeNote = `, ${times} time step${times === 1 ? '' : 's'} ${descriptions[0]}${times > 1 ? ` … ${descriptions[times - 1]}` : ''} (${axis.calendar.replace('_', ' ')} calendar)`;
  }

  // Grid: evenly spaced axes, north-up, longitudes in −180…180.
  const height = v.shape[v.shape.length - 2]!;
  const width = v.shape[v.shape.length - 1]!;
  let xs = Array.from(file.values(xa.coord!.name));
  const ys = Array.from(file.values(ya.coord!.name));
  const geographic = xa.kind.geographic && ya.kind.geographic;
  let wrapped = false;
  if (geographic && xs.some((x) => x > 180)) {
    xs = xs.map((x) => (x >= 180 ? x - 360 : x));
    wrapped = true;
  }
  const xOrder = xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const yOrder = ys.map((_, i) => i).sort((a, b) => ys[b]! - ys[a]!);
  const xAxis = evenAxis(
    xOrder.map((i) => xs[i]!),
    xa.dim,
    shown,
  );
  const yAxis = evenAxis(
    yOrder.map((i) => ys[i]!),
    ya.dim,
    shown,
  );
  if (wrapped && xAxis.first + (width - 0.5) * xAxis.step > 180 + 1e-9) {
    throw new BuildError(
      'invalid_input',
      `${shown}: longitudes cross the antimeridian; crop the grid to one side of 180° first.`,
      { file: shown },
    );
  }
  let srs = 'EPSG:4326';
  if (!geographic) {
    const mapping = text(v.attributes.grid_mapping);
    const gm = mapping ? file.variables.find((x) => x.name === mapping) : undefined;
    const wkt = gm ? (text(gm.attributes.crs_wkt) ?? text(gm.attributes.spatial_ref)) : undefined;
    if (wkt) srs = wkt;
    else if (o.crs) srs = o.crs;
    else {
      throw new BuildError(
        'invalid_option',
        `${shown}: variable ${v.name} is on a projected x/y grid${mapping ? ` whose grid_mapping ${mapping} states no crs_wkt` : ' without a grid_mapping'}. Say its CRS with --crs (e.g. --crs EPSG:32734); the build never guesses one.`,
        { option: 'crs', file: shown },
      );
    }
  }

  // Values: unpack, mask, convert units.
  const fileUnit = text(v.attributes.units);
  let conv = { a: 1, b: 0 };
  let unitNote = fileUnit ? `, ${fileUnit}` : '';
  if (o.unit !== undefined && fileUnit !== undefined) {
    const c = unitConversion(fileUnit, o.unit);
    if (!c) {
      throw new BuildError(
        'invalid_option',
        `${shown}: variable ${v.name} is in ${fileUnit}, and the layer's unit is ${o.unit}; the build converts only K ↔ °C. Build it in the file's unit (--unit "${fileUnit}"), or convert it first.`,
        { option: 'unit', file: shown },
      );
    }
    conv = c;
    if (c.a !== 1 || c.b !== 0) unitNote = `, ${fileUnit} → ${o.unit}`;
  }
  const sf = nums(v.attributes.scale_factor)?.[0] ?? 1;
  const ao = nums(v.attributes.add_offset)?.[0] ?? 0;
  const fills = [
    ...(nums(v.attributes._FillValue) ?? (v.defaultFill !== null ? [v.defaultFill] : [])),
    ...(nums(v.attributes.missing_value) ?? []),
  ];
  const range = nums(v.attributes.valid_range);
  const validMin = nums(v.attributes.valid_min)?.[0] ?? range?.[0] ?? -Infinity;
  const validMax = nums(v.attributes.valid_max)?.[0] ?? range?.[1] ?? Infinity;
  const bits = /^(byte|<?b)$/i.test(v.type)
    ? 8
    : /^(short|<?h)$/i.test(v.type)
      ? 16
      : /^(int|<?i)$/i.test(v.type)
        ? 32
        : 0;
  const unsigned =
    text(v.attributes._Unsigned)?.toLowerCase() === 'true' && bits > 0 && /^(byte|short|int|<?[bhi])$/.test(v.type);
  const isFill = (raw: number) => fills.some((f) => raw === f || Math.abs(raw - f) <= 1e-6 * Math.abs(f));

  const tIndex = timeAxis ? v.dims.indexOf(timeAxis.dim) : -1;
  const zIndex = levelAxis ? v.dims.indexOf(levelAxis.dim) : -1;
  const leadingIndex = (t: number) =>
    v.dims.slice(0, -2).map((_, k) => (k === tIndex ? t : k === zIndex ? levelIndex : 0));
  const west = xAxis.first - xAxis.step / 2;
  const north = yAxis.first - yAxis.step / 2; // yAxis.step < 0 (north first)
  await writeInputGeoTiff(tif, {
    width,
    height,
    geoTransform: [west, xAxis.step, 0, north, 0, yAxis.step],
    srs,
    descriptions,
    bands: times,
    fill(band, out) {
      const slab = file.slab(v.name, leadingIndex(band));
      for (let r = 0; r < height; r++) {
        const row = yOrder[r]! * width;
        for (let c = 0; c < width; c++) {
          let raw = slab[row + xOrder[c]!]!;
          if (Number.isNaN(raw) || isFill(raw)) {
            out[r * width + c] = NaN;
            continue;
          }
          if (unsigned && raw < 0) raw += 2 ** bits;
          out[r * width + c] = raw < validMin || raw > validMax ? NaN : (raw * sf + ao) * conv.a + conv.b;
        }
      }
    },
  });
  const flips = [wrapped ? '0–360° longitudes turned to −180…180' : '', yOrder[0] !== 0 ? 'rows flipped north-up' : '']
    .filter(Boolean)
    .join(', ');
  return {
    tif,
    descriptions,
    unit: o.unit ?? fileUnit,
    longName: text(v.attributes.long_name)?.trim() || text(v.attributes.standard_name)?.replace(/_/g, ' ') || undefined,
    summary: `${shown} (${file.format}): ${v.name}${unitNote}${levelNote}${timeNote}, ${width} × ${height} px${flips ? `, ${flips}` : ''}`,
  };
}
