/** `climate-query build`. */
import { countOf } from '../../contract/quote.ts';
import { writeFile } from 'node:fs/promises';
import { ClimateQueryError } from '../../contract/errors.ts';
import { parseTimeScale } from '../../builder/raster-build-declare.ts';
import { layerText } from '../layer-text.ts';
import { RASTER_TIME_SCALES, STATION_TIME_SCALES, type StationTimeScale } from '../../contract/time-scales.ts';
import { type CliCommand, type Help, orList, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'build',
  usage: `Usage:
  climate-query build --out DIR --stations FILE ${STATION_TIME_SCALES.map((s) => `[--${s} FILE...]`).join(' ')}
        [--time-zone ZONE] [--replace] [--keep-implausible] [--report FILE.json] [--name NAME]
      Adds station data to a dataset from CSV or Parquet files (docs/data.md). Each of
      ${STATION_TIME_SCALES.map((s) => `--${s}`).join('/')} takes one or more files and may be repeated; every file
      is read, and a station's period in two files is refused. Daily and monthly values
      are derived for every station without its own series of that scale. The build adds
      or replaces the stations and scales it is given and keeps the rest of the dataset;
      --replace drops the dataset's station archive first. A value outside its type's
      physical bounds (humidity 0–100 %, rain ≥ 0 …) is refused naming file, row and
      column; --keep-implausible keeps such values and counts them in the report.
      --time-zone: the local standard time the station times are in, as an offset
      (+03:00) or a zone name (Africa/Nairobi: its standard time, never daylight saving).
      Default: the dataset's zone, else SAST (+02:00). Times without a zone are taken
      as in it; hourly times with one (Z, +03:00) are converted into it. A dataset keeps
      one zone. It prints a report per scale; --report writes it as JSON too.
  climate-query build --out DIR --layer NAME[/SUB] --unit UNIT --time-scale SCALE
        [--dates D1,D2,… | --date-pattern PATTERN] [--extent NAME] [--description TEXT]
        [--attribution TEXT] [--scale S] [--offset O] [--nodata=V|none] [--resampling bilinear]
        [--crs EPSG:…] [--variable NAME] [--level VALUE] [--layout map|zarr] [--years A-B]
        [--replace] FILE|STORE...
      Adds one raster layer from GeoTIFFs in any CRS GDAL reads, from CF NetCDF files
      (classic or NetCDF-4), or from a published Zarr store (v2 or v3), kerchunk reference or
      COG collection's STAC JSON, a folder, file or http(s) URL (docs/layers.md). A store is
      copied only for the years --years names and where it meets --extent (tc, sa or the
      dataset's), chunk by chunk. Into a layer the dataset holds, it adds the
      years it is given and keeps the others (on the layer's grid, step and layout); it
      rebuilds a year only with at least the dates it had. --replace replaces the layer whole.
      SCALE: ${RASTER_TIME_SCALES.join(', ')}, or none (one undated grid).
      Dates: --dates (one per band, in file order), --date-pattern 'tmin_{yyyy}{mm}{dd}.tif'
      (single-band files; {d} is a dekad of the month, 1–3, as CHIRPS names its files:
      'chirps-v2.0.{yyyy}.{mm}.{d}.tif'), or else band descriptions that are dates. Never guessed.
      --extent: tc, sa or a name the dataset has (checked against the grid), or a new name
      (takes the grid's bounds). Contract names (temp/min, rain, …) need no --unit/--time-scale.
      A grid without a CRS is refused unless --crs names it (never guessed). An input that
      states no nodata value and holds -9999 (CHIRPS's GeoTIFFs), -999, -32768, 9.97e36 or
      1e20 at an end of its values is refused unless --nodata=-9999 says it marks missing
      data (with =: the value starts with a minus) or --nodata none says it is a value. NetCDF: the
      dates are the file's CF time axis; --variable names the variable (or NETCDF:"f.nc":tas),
      --level picks a level by its value (e.g. 850); scale_factor/add_offset, _FillValue
      and valid ranges are applied, units taken from the file (K → °C for --unit °C).
      --layout: zarr (a Zarr store per year, 8 × 8 px chunks × every date: small point
      reads, a preview per date; the default for more than 32 dates a file, i.e. daily
      years) or map (a Cloud-Optimized GeoTIFF per file group). Both open in GDAL, QGIS and xarray.
      Progress is printed every few seconds.

Options:
  -h, --help       this help

Exit codes:
  0  the dataset was written
  1  the build failed, or the dataset at --out cannot be read (a damaged catalog.json; message on stderr)
  2  bad arguments, or inputs or options the build cannot take (message on stderr)
`,
};

/**
 * Takes the files of `--hourly/--daily/--monthly` out of a station build's
 * arguments: each option takes every following argument up to the next
 * option, and may be repeated (`--hourly a.csv b.csv --hourly c.csv`).
 * Returns the other arguments and the files per scale, in the order given.
 */
function takeScaleFiles(args: string[]): { rest: string[]; files: Record<StationTimeScale, string[]> } {
  const files = noScaleFiles();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^--([a-z_]+)(?:=(.*))?$/.exec(a);
    if (!m || !(STATION_TIME_SCALES as readonly string[]).includes(m[1]!)) {
      rest.push(a);
      continue;
    }
    const scale = m[1] as StationTimeScale;
    const before = files[scale].length;
    if (m[2] !== undefined) files[scale].push(m[2]);
    else while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) files[scale].push(args[++i]!);
    if (files[scale].length === before) usageError(HELP, `--${scale} needs at least one FILE.`);
  }
  return { rest, files };
}

/** No files for any station scale (each scale's option takes them: --hourly, --daily, …). */
function noScaleFiles(): Record<StationTimeScale, string[]> {
  return Object.fromEntries(STATION_TIME_SCALES.map((s) => [s, [] as string[]])) as unknown as Record<
    StationTimeScale,
    string[]
  >;
}

/** gdalwarp methods a build may reproject or regrid with (raster-build.ts). */
const RESAMPLING = ['near', 'bilinear', 'cubic', 'average'] as const;

async function run(argv: string[]): Promise<number> {
  // A raster build's FILE... are positionals; a station build's files follow their scale option.
  const stationBuild = !argv.some((a) => a === '--layer' || a.startsWith('--layer='));
  const { rest: args, files: scaleFiles } = stationBuild ? takeScaleFiles(argv) : { rest: argv, files: noScaleFiles() };
  const { values, positionals } = parseCommand(HELP, args, {
    layer: { type: 'string' },
    unit: { type: 'string' },
    'time-scale': { type: 'string' },
    dates: { type: 'string' },
    'date-pattern': { type: 'string' },
    years: { type: 'string' },
    extent: { type: 'string' },
    description: { type: 'string' },
    attribution: { type: 'string' },
    resampling: { type: 'string' },
    layout: { type: 'string' },
    crs: { type: 'string' },
    variable: { type: 'string' },
    level: { type: 'string' },
    scale: { type: 'string' },
    offset: { type: 'string' },
    nodata: { type: 'string' },
    out: { type: 'string' },
    name: { type: 'string' },
    stations: { type: 'string' },
    replace: { type: 'boolean' },
    'keep-implausible': { type: 'boolean' },
    'time-zone': { type: 'string' },
    report: { type: 'string' },
    // Taken out above for a station build; declared so a raster build names them as misplaced, not unknown.
    ...Object.fromEntries(STATION_TIME_SCALES.map((s) => [s, { type: 'string' as const }])),
  });
  if (values.layer !== undefined) {
    if (!values.out || positionals.length === 0) usageError(HELP, '--layer needs --out DIR and at least one FILE.tif.');
    const [dataType, subDataType, extra] = values.layer.split('/');
    if (!dataType || subDataType === '' || extra !== undefined)
      usageError(HELP, `--layer must be NAME or NAME/SUB (e.g. elevation, et0/fao56); got "${values.layer}".`);
    const number = (flag: string, text: string | undefined) => {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n))
        throw new ClimateQueryError('invalid_field', `--${flag} must be a number; got "${text}".`, { field: flag });
      return n;
    };
    const resampling = values.resampling;
    if (resampling !== undefined && !RESAMPLING.includes(resampling as (typeof RESAMPLING)[number])) {
      throw new ClimateQueryError(
        'invalid_field',
        `--resampling must be one of ${RESAMPLING.join(', ')}; got "${resampling}".`,
        { field: 'resampling' },
      );
    }
    const layout = values.layout;
    if (layout !== undefined && layout !== 'map' && layout !== 'zarr') {
      throw new ClimateQueryError('invalid_field', `--layout must be map or zarr; got "${layout}".`, {
        field: 'layout',
      });
    }
    let years: [number, number] | undefined;
    if (values.years !== undefined) {
      const m = /^(\d{4})(?:-(\d{4}))?$/.exec(values.years);
      years = m ? [Number(m[1]), Number(m[2] ?? m[1])] : undefined;
      if (!years || years[1] < years[0])
        usageError(HELP, `--years must be a year or two (2015-2024); got "${values.years}".`);
    }
    const scale = number('scale', values.scale);
    const offset = number('offset', values.offset);
    const nodata = values.nodata === 'none' ? 'none' : number('nodata', values.nodata);
    const { buildRasterLayer } = await import('../../builder/raster-build.ts');
    const result = await buildRasterLayer({
      dir: values.out,
      datasetName: values.name ?? 'dataset',
      dataType,
      ...(subDataType !== undefined ? { subDataType } : {}),
      ...(values.unit !== undefined ? { unit: values.unit } : {}),
      ...(values['time-scale'] !== undefined ? { timeScale: parseTimeScale(values['time-scale']) } : {}),
      ...(values.dates !== undefined ? { dates: values.dates.split(',').map((d) => d.trim()) } : {}),
      ...(values['date-pattern'] !== undefined ? { datePattern: values['date-pattern'] } : {}),
      ...(years !== undefined ? { years } : {}),
      ...(values.extent !== undefined ? { extent: values.extent } : {}),
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.attribution !== undefined ? { attribution: values.attribution } : {}),
      inputs: positionals,
      ...(scale !== undefined ? { scale } : {}),
      ...(offset !== undefined ? { offset } : {}),
      ...(nodata !== undefined ? { nodata } : {}),
      ...(resampling !== undefined ? { resampling: resampling as (typeof RESAMPLING)[number] } : {}),
      ...(values.crs !== undefined ? { crs: values.crs } : {}),
      ...(values.variable !== undefined ? { variable: values.variable } : {}),
      ...(values.level !== undefined ? { level: values.level } : {}),
      ...(layout !== undefined ? { layout } : {}),
      ...(values.replace ? { replace: true } : {}),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(
      `Built into ${values.out} in ${result.seconds.toFixed(1)} s:\n${layerText(result.layer, result.files)}`,
    );
    return 0;
  }
  if (positionals.length > 0) {
    usageError(
      HELP,
      `unexpected argument "${positionals[0]}": a station build's files follow ${orList(STATION_TIME_SCALES.map((s) => `--${s}`))} (each takes one or more), a raster build's follow --layer NAME.`,
    );
  }
  if (!values.out || !values.stations) {
    usageError(HELP, 'needs --out DIR and either --stations FILE or --layer TYPE/SUBTYPE FILE.tif...');
  }
  const { buildStationsWithReport, failedReport, reportText } = await import('../../builder/stations-build.ts');
  const t0 = Date.now();
  const replace = values.replace ?? false;
  const { progressLines } = await import('../heartbeat.ts');
  const lines = progressLines('build: ');
  let result;
  try {
    result = await buildStationsWithReport(
      { stations: values.stations, ...scaleFiles },
      values.out,
      values.name ?? 'dataset',
      {
        replace,
        keepImplausible: values['keep-implausible'] ?? false,
        ...(values['time-zone'] !== undefined ? { timeZone: values['time-zone'] } : {}),
        progress: lines.progress,
      },
    );
  } catch (err) {
    // The report says why nothing was written, for a tool that reads it.
    if (values.report)
      await writeFile(
        values.report,
        `${JSON.stringify(failedReport(values.out, replace, err, (Date.now() - t0) / 1000), null, 2)}\n`,
      );
    throw err;
  } finally {
    lines.stop();
  }
  if (values.report) await writeFile(values.report, `${JSON.stringify(result.report, null, 2)}\n`);
  process.stderr.write(reportText(result.report));
  process.stderr.write(
    `Built ${countOf(result.section.count, 'station')} into ${values.out} in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

/** The `build` command. */
export const buildCommand: CliCommand = { ...HELP, run };
