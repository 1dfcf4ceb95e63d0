/**
 * The `climate-query` command line: query a dataset, build one from your
 * own files, make the demo dataset. `main` returns the exit status: 0 on
 * success, 2 on a bad request or bad input (the error JSON is on stdout for
 * queries), 1 on anything else.
 */
import { countOf } from '../contract/quote.ts';
import { exitFor, exitStatusOfCode } from './cli-exit.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ENDPOINTS, type Endpoint } from '../contract/types.ts';
import { ClimateQueryError, toClimateQueryError } from '../contract/errors.ts';
import { parseTimeScale } from '../builder/raster-build-declare.ts';
import { catalogLayersText, layerText } from './layer-text.ts';
import { DEFAULT_DATASET } from './demo.ts';
import { createNodeEngine } from './node-engine.ts';
import { startServer } from './server.ts';
import { missingPackageMessage } from './optional-packages.ts';
import { packageVersion } from './package-version.ts';
import { sqlResultCsv } from '../sql/sql-csv.ts';
import { CROP_GDD_BASE, INDEX_DEFAULTS, STATION_INDEX_NAMES } from '../contract/station-indices.ts';
import { LIMITS } from '../contract/validate.ts';
import {
  RASTER_TIME_SCALES,
  STATION_TIME_SCALES,
  TIME_SCALES,
  TIME_SCALE_NAMES,
  type StationTimeScale,
} from '../contract/time-scales.ts';
import { STATION_TYPES } from '../contract/station-data-types.ts';

/** "a, b or c". */
const orList = (xs: readonly string[]): string =>
  xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}` : xs.join('');

/** `items` joined by ", " in lines of at most `width` characters, every line after the first indented by `indent`. */
function wrapList(items: readonly string[], indent: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line ? `${line}, ${item}` : item;
    if (line && indent.length + next.length + 1 > width) {
      lines.push(`${line},`);
      line = item;
    } else line = next;
  }
  lines.push(line);
  return lines.join(`\n${indent}`);
}

/**
 * The time scales with how their dates are written, and the station data
 * types per scale: read from the contract's description of both
 * (contract/time-scales.ts, contract/station-types.ts), so a scale or type
 * added there is listed here.
 */
function scalesText(): string {
  const nameWidth = Math.max(...TIME_SCALE_NAMES.map((s) => s.length)) + 2;
  const formatWidth = Math.max(...TIME_SCALE_NAMES.map((s) => TIME_SCALES[s].format.length)) + 2;
  const exampleWidth = Math.max(...TIME_SCALE_NAMES.map((s) => TIME_SCALES[s].example.length)) + 7;
  const scales = TIME_SCALE_NAMES.map((s) => {
    const t = TIME_SCALES[s];
    const of = [t.station ? 'station records' : '', t.raster ? 'layers' : ''].filter(Boolean).join(' and ');
    return `  ${s.padEnd(nameWidth)}${t.format.padEnd(formatWidth)}${`e.g. ${t.example}`.padEnd(exampleWidth)}${t.words} of ${of}`;
  });
  const labelWidth = Math.max(...STATION_TIME_SCALES.map((s) => s.length)) + 3;
  const types = STATION_TIME_SCALES.map(
    (s) => `  ${`${s}:`.padEnd(labelWidth)}${wrapList(STATION_TYPES[s], ' '.repeat(labelWidth + 2))}`,
  );
  return `Time scales (options.timeScale) and how startDate and endDate are written:
${scales.join('\n')}

Station data types (dataTypes of nearest-station and poly-aggregate) per time scale
(their plain names, units and steps: docs/openapi.json):
${types.join('\n')}
`;
}

/** The CLI's commands. */
type Command = 'query' | 'indices' | 'sql' | 'build' | 'layers' | 'stations' | 'index' | 'serve' | 'demo';

/**
 * Usage of each command, printed by `climate-query <command> --help` (exit
 * 0) and after a usage error (exit 2). One entry per command so that adding
 * an option touches one place.
 */
const USAGES: Record<Command, string> = {
  query: `Usage: climate-query query <endpoint> <request.json|-> [--data DIR|URL] [--timeout SECONDS] [--follow-links]

  Answers one request as the service would and prints the answer JSON.
  endpoint: ${ENDPOINTS.join(', ')}
  request:  a JSON file, or - to read it from stdin (docs/contract.md)

Options:
  --data DIR|URL   dataset to query (default: the demo dataset, ${DEFAULT_DATASET})
  --timeout S      give up after S seconds (default 30) with upstream_timeout (504)
  --follow-links   read files a symlink in the dataset folder leads out of it to (refused by default)
  -h, --help       this help

${scalesText()}
Exit codes:
  0  the answer is on stdout
  1  the dataset is missing, unreadable or changed since it was built (dataset_changed), the query timed out, or an internal error (error JSON on stdout)
  2  a bad request (error JSON {"error":{...}} on stdout) or bad arguments (usage on stderr)
`,
  indices: `Usage: climate-query indices <WKT> --indices NAME[,NAME…] --from yyyy-mm-dd --to yyyy-mm-dd
         [--by window|season] [--crop ${Object.keys(CROP_GDD_BASE).join('|')} | --gdd-base C]
         [--chill-season mm-dd/mm-dd] [--heat-season mm-dd/mm-dd] [--frost-season mm-dd/mm-dd]
         [--max-gap-hours N] [--min-completeness F] [--data DIR|URL] [--timeout SECONDS] [--follow-links]

  Chill and heat indices from station temperatures (docs/indices.md): the request
  POST /api/station-indices/ takes, built from the options, answered as the service
  answers it (the same JSON). WKT: up to ${LIMITS.pointsPerQuery} POINTs joined by ";" (each: the nearest
  station with temperatures), or one POLYGON (the stations inside, averaged).
  NAME: ${STATION_INDEX_NAMES.join(', ')}

Options:
  --indices N,…        the indices, comma-separated
  --from, --to         the window, inclusive, local standard time
  --by season          one value per season inside the window (default: one for the window)
  --chill-season S     default ${INDEX_DEFAULTS.chillSeason}; --heat-season ${INDEX_DEFAULTS.heatSeason}; --frost-season ${INDEX_DEFAULTS.frostSeason}
  --crop C             degree-day base of the crop (${Object.entries(CROP_GDD_BASE)
    .map(([c, b]) => `${c} ${b} °C`)
    .join(', ')}); or --gdd-base C
  --max-gap-hours N    longest gap filled linearly (default ${INDEX_DEFAULTS.maxGapHours})
  --min-completeness F share of hours needed for a value (default ${INDEX_DEFAULTS.minCompleteness})
  --data DIR|URL       dataset (default: the demo dataset, ${DEFAULT_DATASET})
  --timeout S          give up after S seconds (default 30)
  --follow-links       read files a symlink in the dataset folder leads out of it to (refused by default)
  -h, --help           this help

Example:
  climate-query indices "POINT (19.31 -33.37)" --indices chill_portions,dpcu --from 2020-04-01 --to 2024-08-31 --by season

Exit codes: as query.
`,
  sql: `Usage: climate-query sql <query|-> --stations ID[,ID…] --time-scale ${STATION_TIME_SCALES.join('|')}
         --from DATE --to DATE [--types T1,T2,…] [--max-rows N] [--format csv|json]
         [--data DIR|URL] [--timeout SECONDS] [--follow-links]

  Runs one read-only SQL query (DuckDB's dialect) over the chosen stations' records
  (docs/sql.md). The query sees two tables:
    observations(station_id, time, <one DOUBLE column per data type>)
    stations(station_id, name, lat, lon, elevation)
  query: the SQL text, or - to read it from stdin.

Options:
  --stations IDS   station ids, comma-separated (at most 50)
  --time-scale S   ${orList(STATION_TIME_SCALES)}
  --from, --to     first and last period, as the endpoints take them
                   (${orList(STATION_TIME_SCALES.map((s) => TIME_SCALES[s].example))})
  --types T,…      data type columns to load (default: every type the dataset holds)
  --max-rows N     most result rows (default 10000, at most 100000); more is an error
  --format F       csv (default) or json ({"columns","rows","loaded"})
  --data DIR|URL   dataset (default: the demo dataset, ${DEFAULT_DATASET})
  --timeout S      give up after S seconds (default 30)
  --follow-links   read files a symlink in the dataset folder leads out of it to (refused by default)
  -h, --help       this help

Example:
  climate-query sql --stations 689160-99999 --time-scale hourly \\
    --from 2024-05-01T00:00:00 --to 2024-08-31T23:00:00 \\
    "SELECT date_trunc('month', time) AS month, count(*) FILTER (WHERE temperature_min <= 0) AS frost_hours
     FROM observations GROUP BY month ORDER BY month"

Exit codes:
  0  the result is on stdout
  1  the dataset is missing or unreadable, native DuckDB (@duckdb/node-api) is missing, or an internal error
  2  bad SQL or a bad request (error JSON on stdout), or bad arguments (usage on stderr)
`,
  build: `Usage:
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
        [--attribution TEXT] [--scale S] [--offset O] [--resampling bilinear] [--crs EPSG:…]
        [--variable NAME] [--level VALUE] [--layout map|zarr] [--replace] FILE...
      Adds one raster layer from GeoTIFFs in any CRS GDAL reads, or from CF NetCDF files
      (classic or NetCDF-4) (docs/layers.md). Into a layer the dataset holds, it adds the
      years it is given and keeps the others (on the layer's grid, step and layout); it
      rebuilds a year only with at least the dates it had. --replace replaces the layer whole.
      SCALE: ${RASTER_TIME_SCALES.join(', ')}, or none (one undated grid).
      Dates: --dates (one per band, in file order), --date-pattern 'tmin_{yyyy}{mm}{dd}.tif'
      (single-band files; {d} is a dekad of the month, 1–3, as CHIRPS names its files:
      'chirps-v2.0.{yyyy}.{mm}.{d}.tif'), or else band descriptions that are dates. Never guessed.
      --extent: tc, sa or a name the dataset has (checked against the grid), or a new name
      (takes the grid's bounds). Contract names (temp/min, rain, …) need no --unit/--time-scale.
      A grid without a CRS is refused unless --crs names it (never guessed). NetCDF: the
      dates are the file's CF time axis; --variable names the variable (or NETCDF:"f.nc":tas),
      --level picks a level by its value (e.g. 850); scale_factor/add_offset, _FillValue
      and valid ranges are applied, units taken from the file (K → °C for --unit °C).
      --layout: zarr (a Zarr store per year, 8 × 8 px chunks × every date: small point
      reads, a preview per date; the default for more than 32 dates a file, i.e. daily
      years) or map (one tiled GeoTIFF per file group). Both open in GDAL, QGIS and xarray.
      Progress is printed every few seconds.

Options:
  -h, --help       this help

Exit codes:
  0  the dataset was written
  1  the build failed, or the dataset at --out cannot be read (a damaged catalog.json; message on stderr)
  2  bad arguments, or inputs or options the build cannot take (message on stderr)
`,
  layers: `Usage: climate-query layers [--data DIR|URL]
       climate-query layers remove NAME[/SUB] [--extent E] [--data DIR]
       climate-query layers merge SOURCE_DIR... [--data DIR]

  Lists the dataset's raster layers (dataType, subDataType, dataExtent,
  timeScale, dates, unit) and how to ask for each with query point|polygon.
  "remove" takes one layer out of a dataset folder: its catalog entry, then
  its files; every other layer and the stations stay as they are. --extent
  says which when the dataset has the layer on several extents.
  "merge" adds the raster layers of datasets built elsewhere (years of one
  layer built on several machines) to the dataset folder: a year it has
  already is replaced only by one holding at least the same dates; layers
  stored differently (grid, step, layout) are refused, and then nothing
  changes. Stations are not merged (the message says whose were left).

Options:
  --data DIR|URL   dataset (default: the demo dataset, ${DEFAULT_DATASET})
  --extent E       with remove: the layer's extent (tc, sa, …)
  -h, --help       this help

Exit codes:
  0  listed, removed, or merged
  1  no dataset there, or it is unreadable
  2  bad arguments, no such layer (the message lists the layers there), or layers that cannot be merged
`,
  stations: `Usage: climate-query stations remove ID... [--data DIR]
       climate-query stations remove --all [--data DIR]

  Takes stations out of a dataset folder: each named station's files at every
  time scale and its row in stations/stations.parquet, then re-indexes the
  archive; every other station and the raster layers stay as they are. --all
  removes the whole station archive. An unknown ID removes nothing.

Options:
  --data DIR       dataset folder (default: the demo dataset, ${DEFAULT_DATASET})
  --all            remove every station
  -h, --help       this help

Exit codes:
  0  removed
  1  the removal failed
  2  bad arguments, no stations there, or an unknown ID
`,
  index: `Usage: climate-query index DIR [--name NAME] [--time-zone ZONE]

  Checks a station archive written by any Parquet tool (DIR/stations/stations.parquet
  and DIR/stations/<scale>/station_id=<id>/*.parquet, docs/data.md) and writes its
  index and coverage, so the engine can answer from it.

Options:
  --name NAME      the dataset's name in catalog.json
  --time-zone ZONE the local standard time the archive's times are in (+03:00 or a zone
                   name; default: the zone catalog.json names, else SAST +02:00)
  -h, --help       this help

Exit codes:
  0  indexed
  1  indexing failed
  2  bad arguments, or the archive does not conform (message names file, row and column)
`,
  serve: `Usage: climate-query serve [--data DIR|URL] [--static DIR] [--port 8787] [--host 127.0.0.1] [--timeout SECONDS]
                            [--follow-links] [--all-files]

  Serves POST /api/<endpoint>/, GET /api/openapi.json and the dataset's files
  (Range, HEAD, CORS) from one process. Ctrl-C stops it. From a dataset folder
  it serves only what the dataset lists (catalog.json, the files it names, its
  zarr stores' objects, its station archive); no dotfile is ever served (a zarr
  store's .zmetadata/.zarray/.zattrs/.zgroup excepted). A client has 20 s for
  its headers and 30 s for its whole request; at most 256 connections at once.

Options:
  --data DIR|URL   dataset to serve (default: the demo dataset, ${DEFAULT_DATASET})
  --static DIR     serve this folder's files instead of the dataset's, e.g. a built site
                   (npm run preview: --static dist --data dist/data/demo)
  --port N         port to listen on (default 8787; 0 picks a free one)
  --host H         address to listen on (default 127.0.0.1, this machine only)
  --timeout S      each query's budget in seconds (default 30); past it, 504 upstream_timeout
  --follow-links   read and serve files a symlink in the dataset folder leads out of it to
                   (default: the API refuses them and the static side answers 404)
  --all-files      serve the dataset folder as it is (dotfiles still not), not only what it lists
  -h, --help       this help

Exit codes:
  0  stopped by Ctrl-C (SIGINT) or SIGTERM
  1  no dataset at --data, or the port cannot be opened
  2  bad arguments
`,
  demo: `Usage: climate-query demo [--out DIR] [--if-missing]

  Writes the synthetic demo dataset (default ${DEFAULT_DATASET}).

Options:
  --out DIR        where to write it
  --if-missing     do nothing when DIR/catalog.json exists
  -h, --help       this help

Exit codes:
  0  written (or present, with --if-missing)
  1  the build failed
  2  bad arguments
`,
};

const USAGE = `climate-query: climate-data queries on a static dataset, with no server.

Usage:
  climate-query query <endpoint> <request.json|-> [--data DIR|URL] [--timeout SECONDS]
      point and polygon ask for a raster layer the dataset declares: see \`climate-query layers\`;
      time scales, date formats and station data types: \`climate-query query --help\`.
  climate-query indices <WKT> --indices chill_portions,… --from D --to D [--by season]
      chill, heat and frost indices from station temperatures (docs/indices.md).
  climate-query sql <query|-> --stations ID,… --time-scale S --from D --to D [--data DIR|URL]
      read-only SQL over station records (DuckDB).
  climate-query layers [--data DIR|URL]       (layers remove NAME[/SUB]: take one out; layers merge DIR...: add others' years)
  climate-query stations remove ID...|--all [--data DIR]
  climate-query build --out DIR (--stations FILE ... | --layer NAME[/SUB] --unit U --time-scale S FILE.tif...)
  climate-query index DIR [--name NAME] [--time-zone ZONE]
  climate-query serve [--data DIR|URL] [--port 8787] [--host 127.0.0.1]
  climate-query demo [--out DIR] [--if-missing]
  climate-query <command> --help     usage, options and exit codes of one command
  climate-query --version

Exit codes: 0 success, 1 failure (data, I/O, internal), 2 bad arguments or a bad request.
`;

/** Thrown by {@link parseCommand} to end a command early with `status` (help: 0, usage error: 2). */
class UsageExit extends Error {
  constructor(readonly status: number) {
    super(`usage exit ${status}`);
  }
}

/**
 * `parseArgs` for one command, plus what every command shares: `-h/--help`
 * prints its usage (exit 0); an unknown option or a missing value prints the
 * problem and the usage on stderr (exit 2) instead of a stack.
 */
function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  command: Command,
  args: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    // `--help` wins over a mistake elsewhere on the line.
    if (!args.includes('--help') && !args.includes('-h'))
      usageError(command, err instanceof Error ? err.message : String(err));
  }
  if (!parsed || (parsed.values as { help?: boolean }).help) {
    process.stdout.write(USAGES[command]);
    throw new UsageExit(0);
  }
  return parsed as ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>>;
}

/** Prints `message` and the command's usage on stderr and ends the command with exit 2. */
function usageError(command: Command, message: string): never {
  process.stderr.write(`climate-query ${command}: ${message}\n\n${USAGES[command]}`);
  throw new UsageExit(2);
}

/** Exit status of an answer (cli-exit.ts): 0 for 200, 2 for the request's fault, 1 for the data's or the machine's. */
const exitStatusOf = exitStatusOfCode;

/** Runs the CLI with `argv` (without node and script) and returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'query':
        return await queryCommand(rest);
      case 'indices':
        return await indicesCommand(rest);
      case 'sql':
        return await sqlCommand(rest);
      case 'build':
        return await buildCommand(rest);
      case 'layers':
        return await layersCommand(rest);
      case 'stations':
        return await stationsCommand(rest);
      case 'index':
        return await indexCommand(rest);
      case 'demo':
        return await demoCommand(rest);
      case 'serve':
        return await serveCommand(rest);
      case '--version':
      case '-v':
        process.stdout.write(`${packageVersion()}\n`);
        return 0;
      case 'help':
      case '--help':
      case '-h':
        if (rest[0] && rest[0] in USAGES) {
          process.stdout.write(USAGES[rest[0] as Command]);
          return 0;
        }
        process.stdout.write(USAGE);
        return 0;
      case undefined:
        process.stderr.write(USAGE);
        return 2;
      default:
        process.stderr.write(`climate-query: unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof UsageExit) return err.status;
    const missing = missingPackageMessage(err, command ?? '');
    if (missing) {
      process.stderr.write(`${missing}\n`);
      return 1;
    }
    // One mapping for every command (cli-exit.ts).
    const { status, text } = exitFor(err);
    process.stderr.write(`${text}\n`);
    return status;
  }
}

async function queryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('query', args, {
    data: { type: 'string' },
    timeout: { type: 'string' },
    'follow-links': { type: 'boolean' },
    'all-files': { type: 'boolean' },
  });
  const [endpoint, file] = positionals;
  if (!endpoint || !ENDPOINTS.includes(endpoint as Endpoint) || !file || positionals.length > 2) {
    usageError('query', `needs an endpoint (${ENDPOINTS.join(', ')}) and a request file or -.`);
  }
  // Arguments first: a bad --timeout is a usage error even when the file is missing too.
  timeoutOption('query', values.timeout);
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  return answer('query', endpoint as Endpoint, text, values);
}

/** `climate-query indices`: the station-indices request built from options, answered as `query` answers it. */
async function indicesCommand(args: string[]): Promise<number> {
  const text = { type: 'string' } as const;
  const { values, positionals } = parseCommand('indices', args, {
    indices: text,
    from: text,
    to: text,
    by: text,
    crop: text,
    'gdd-base': text,
    'chill-season': text,
    'heat-season': text,
    'frost-season': text,
    'max-gap-hours': text,
    'min-completeness': text,
    data: text,
    timeout: text,
    'follow-links': { type: 'boolean' },
  });
  if (positionals.length !== 1) usageError('indices', 'needs one WKT argument (quote it: "POINT (19.31 -33.37)").');
  if (!values.indices || !values.from || !values.to) usageError('indices', 'needs --indices, --from and --to.');
  // Numbers go to the validator as numbers when they parse, as text otherwise, so it names the option at fault.
  const num = (v: string | undefined) =>
    v === undefined ? undefined : v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  const options = Object.fromEntries(
    Object.entries({
      by: values.by,
      crop: values.crop,
      gddBase: num(values['gdd-base']),
      chillSeason: values['chill-season'],
      heatSeason: values['heat-season'],
      frostSeason: values['frost-season'],
      maxGapHours: num(values['max-gap-hours']),
      minCompleteness: num(values['min-completeness']),
    }).filter(([, v]) => v !== undefined),
  );
  const body = {
    wkts: positionals[0],
    indices: values.indices.split(',').map((s) => s.trim()),
    startDate: values.from,
    endDate: values.to,
    ...(Object.keys(options).length ? { options } : {}),
  };
  return answer('indices', 'station-indices', JSON.stringify(body), values);
}

/** Answers one request body on the dataset the options name and prints the answer or error JSON; returns the exit status. */
async function answer(
  command: Command,
  endpoint: Endpoint,
  text: string,
  values: { data?: string; timeout?: string; 'follow-links'?: boolean },
): Promise<number> {
  const timeoutMs = timeoutOption(command, values.timeout);
  const data = values.data ?? DEFAULT_DATASET;
  if (!values.data && !existsSync(data)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const engine = createNodeEngine(data, { timeoutMs, followLinks: values['follow-links'] });
  try {
    const res = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: text });
    process.stdout.write(`${JSON.stringify(res.body)}\n`);
    return exitStatusOf(res.status, (res.body as { error?: { code?: string } }).error?.code);
  } catch (err) {
    process.stdout.write(`${JSON.stringify(toClimateQueryError(err).toBody())}\n`);
    return 1;
  } finally {
    await engine.close();
  }
}

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
    if (files[scale].length === before) usageError('build', `--${scale} needs at least one FILE.`);
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

async function buildCommand(argv: string[]): Promise<number> {
  // A raster build's FILE... are positionals; a station build's files follow their scale option.
  const stationBuild = !argv.some((a) => a === '--layer' || a.startsWith('--layer='));
  const { rest: args, files: scaleFiles } = stationBuild ? takeScaleFiles(argv) : { rest: argv, files: noScaleFiles() };
  const { values, positionals } = parseCommand('build', args, {
    layer: { type: 'string' },
    unit: { type: 'string' },
    'time-scale': { type: 'string' },
    dates: { type: 'string' },
    'date-pattern': { type: 'string' },
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
    if (!values.out || positionals.length === 0)
      usageError('build', '--layer needs --out DIR and at least one FILE.tif.');
    const [dataType, subDataType, extra] = values.layer.split('/');
    if (!dataType || subDataType === '' || extra !== undefined)
      usageError('build', `--layer must be NAME or NAME/SUB (e.g. elevation, et0/fao56); got "${values.layer}".`);
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
    const scale = number('scale', values.scale);
    const offset = number('offset', values.offset);
    const { buildRasterLayer } = await import('../builder/raster-build.ts');
    const result = await buildRasterLayer({
      dir: values.out,
      datasetName: values.name ?? 'dataset',
      dataType,
      ...(subDataType !== undefined ? { subDataType } : {}),
      ...(values.unit !== undefined ? { unit: values.unit } : {}),
      ...(values['time-scale'] !== undefined ? { timeScale: parseTimeScale(values['time-scale']) } : {}),
      ...(values.dates !== undefined ? { dates: values.dates.split(',').map((d) => d.trim()) } : {}),
      ...(values['date-pattern'] !== undefined ? { datePattern: values['date-pattern'] } : {}),
      ...(values.extent !== undefined ? { extent: values.extent } : {}),
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.attribution !== undefined ? { attribution: values.attribution } : {}),
      inputs: positionals,
      ...(scale !== undefined ? { scale } : {}),
      ...(offset !== undefined ? { offset } : {}),
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
      'build',
      `unexpected argument "${positionals[0]}": a station build's files follow ${orList(STATION_TIME_SCALES.map((s) => `--${s}`))} (each takes one or more), a raster build's follow --layer NAME.`,
    );
  }
  if (!values.out || !values.stations) {
    usageError('build', 'needs --out DIR and either --stations FILE or --layer TYPE/SUBTYPE FILE.tif...');
  }
  const { buildStationsWithReport, failedReport, reportText } = await import('../builder/stations-build.ts');
  const t0 = Date.now();
  const replace = values.replace ?? false;
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
  }
  if (values.report) await writeFile(values.report, `${JSON.stringify(result.report, null, 2)}\n`);
  process.stderr.write(reportText(result.report));
  process.stderr.write(
    `Built ${countOf(result.section.count, 'station')} into ${values.out} in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

/** gdalwarp methods a build may reproject or regrid with (raster-build.ts). */
const RESAMPLING = ['near', 'bilinear', 'cubic', 'average'] as const;

async function layersCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('layers', args, {
    data: { type: 'string' },
    extent: { type: 'string' },
  });
  const data = values.data ?? DEFAULT_DATASET;
  if (positionals[0] === 'remove') {
    const [, name, ...extra] = positionals;
    if (!name || extra.length)
      usageError(
        'layers',
        `remove takes one layer, NAME or NAME/SUB${extra.length ? `; unexpected "${extra[0]}"` : ''}.`,
      );
    if (/^https?:\/\//i.test(data))
      usageError('layers', 'remove changes a dataset folder; --data must be a folder, not a URL.');
    const [dataType, subDataType = '-', more] = name.split('/');
    if (!dataType || more !== undefined) usageError('layers', `"${name}" is not NAME or NAME/SUB.`);
    const { removeRasterLayer } = await import('../builder/dataset-remove.ts');
    const r = await removeRasterLayer(data, dataType, subDataType, values.extent);
    process.stderr.write(
      `Removed layer ${r.removed} from ${data}: ${r.files.length} file(s) deleted${r.files.length ? ` (${r.files.join(', ')})` : ''}.\n`,
    );
    return 0;
  }
  if (positionals[0] === 'merge') {
    const sources = positionals.slice(1);
    if (sources.length === 0) usageError('layers', 'merge takes one or more dataset folders to add.');
    if (/^https?:\/\//i.test(data) || sources.some((s) => /^https?:\/\//i.test(s)))
      usageError('layers', 'merge reads and changes dataset folders, not URLs.');
    const { mergeDatasets } = await import('../builder/dataset-merge.ts');
    const r = await mergeDatasets(data, sources);
    for (const l of r.layers) {
      process.stderr.write(
        `${l.layer} from ${l.from}: ${l.added.length ? `added ${l.added.join(', ')}` : 'nothing new'}${l.replaced.length ? `; replaced ${l.replaced.join(', ')}` : ''}\n`,
      );
    }
    for (const s of r.stationsLeft)
      process.stderr.write(`${s}: its stations were not merged (merge adds raster layers).\n`);
    return 0;
  }
  if (values.extent !== undefined) usageError('layers', '--extent goes with remove.');
  if (positionals.length > 0) usageError('layers', `unexpected argument "${positionals[0]}".`);
  if (!/^https?:\/\//i.test(data) && !existsSync(`${data}/catalog.json`)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const engine = createNodeEngine(data);
  try {
    process.stdout.write(catalogLayersText(await engine.catalog()));
    return 0;
  } finally {
    await engine.close();
  }
}

async function stationsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('stations', args, {
    data: { type: 'string' },
    all: { type: 'boolean' },
  });
  const [sub, ...ids] = positionals;
  if (sub !== 'remove')
    usageError(
      'stations',
      sub === undefined ? 'say what to do: remove.' : `unknown subcommand "${sub}"; the one there is: remove.`,
    );
  const all = values.all ?? false;
  if (all === ids.length > 0)
    usageError(
      'stations',
      all
        ? '--all removes every station; name no IDs with it.'
        : 'name the stations to remove (their station_id), or pass --all.',
    );
  const data = values.data ?? DEFAULT_DATASET;
  if (/^https?:\/\//i.test(data))
    usageError('stations', 'remove changes a dataset folder; --data must be a folder, not a URL.');
  const { removeStations } = await import('../builder/dataset-remove.ts');
  const r = await removeStations(data, ids, all);
  process.stderr.write(`Removed ${r.removed} from ${data}.\n`);
  return 0;
}

async function indexCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('index', args, {
    name: { type: 'string' },
    'time-zone': { type: 'string' },
  });
  const [dir] = positionals;
  if (!dir || positionals.length > 1)
    usageError('index', 'needs one DIR holding stations/stations.parquet and stations/<scale>/….');
  const { indexStations } = await import('../builder/station-index-build.ts');
  const { resolveTimeZone } = await import('../builder/time-zone.ts');
  const t0 = Date.now();
  const zone = values['time-zone'] === undefined ? undefined : resolveTimeZone(values['time-zone']);
  const section = await indexStations(dir, values.name ?? 'dataset', zone);
  const scales = Object.entries(section.dataTypes)
    .map(([s, t]) => `${s}: ${t!.join(', ')}`)
    .join('; ');
  process.stderr.write(
    `Indexed ${countOf(section.count, 'station')} in ${dir} (${scales}; times in UTC${section.utcOffset}) in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

/** `--timeout SECONDS` as milliseconds (undefined: the engine's default). */
function timeoutOption(command: Command, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (text.trim() === '' || !(seconds > 0) || !Number.isFinite(seconds))
    usageError(command, `--timeout must be a number of seconds above 0; got "${text}".`);
  return seconds * 1000;
}

async function sqlCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('sql', args, {
    data: { type: 'string' },
    timeout: { type: 'string' },
    stations: { type: 'string' },
    'time-scale': { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    types: { type: 'string' },
    'max-rows': { type: 'string' },
    format: { type: 'string' },
    'follow-links': { type: 'boolean' },
  });
  const [text] = positionals;
  if (!text || positionals.length > 1)
    usageError('sql', 'needs the SQL text (quoted, one argument) or - to read it from stdin.');
  for (const required of ['stations', 'time-scale', 'from', 'to'] as const) {
    if (values[required] === undefined) usageError('sql', `--${required} is required.`);
  }
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') usageError('sql', `--format must be csv or json; got "${format}".`);
  let maxRows: number | undefined;
  if (values['max-rows'] !== undefined) {
    maxRows = Number(values['max-rows']);
    if (!Number.isInteger(maxRows))
      usageError('sql', `--max-rows must be a whole number; got "${values['max-rows']}".`);
  }
  const list = (v: string) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const timeoutMs = timeoutOption('sql', values.timeout);
  const data = values.data ?? DEFAULT_DATASET;
  if (!values.data && !existsSync(data)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const sql = text === '-' ? await readStdin() : text;
  const request = {
    sql,
    stations: list(values.stations!),
    timeScale: values['time-scale'],
    startDate: values.from,
    endDate: values.to,
    ...(values.types !== undefined ? { dataTypes: list(values.types) } : {}),
    ...(maxRows !== undefined ? { maxRows } : {}),
  };
  const engine = createNodeEngine(data, { timeoutMs, followLinks: values['follow-links'] });
  try {
    const result = await engine.sql(request);
    process.stdout.write(format === 'json' ? `${JSON.stringify(result)}\n` : sqlResultCsv(result));
    return 0;
  } catch (err) {
    const error = toClimateQueryError(err);
    process.stdout.write(`${JSON.stringify(error.toBody())}\n`);
    if (error.code === 'sql_unavailable') process.stderr.write(`${error.message}\n`);
    return exitStatusOf(error.status, error.code);
  } finally {
    await engine.close();
  }
}

async function demoCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('demo', args, {
    out: { type: 'string' },
    'if-missing': { type: 'boolean' },
  });
  if (positionals.length > 0) usageError('demo', `unexpected argument "${positionals[0]}".`);
  const out = values.out ?? DEFAULT_DATASET;
  if (values['if-missing'] && existsSync(`${out}/catalog.json`)) {
    process.stderr.write(`Demo dataset present at ${out}.\n`);
    return 0;
  }
  const { buildDemo } = await import('./demo.ts');
  await buildDemo(out, (line) => process.stderr.write(`${line}\n`));
  return 0;
}

async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('serve', args, {
    data: { type: 'string' },
    static: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    timeout: { type: 'string' },
    'follow-links': { type: 'boolean' },
    'all-files': { type: 'boolean' },
  });
  if (positionals.length > 0) usageError('serve', `unexpected argument "${positionals[0]}".`);
  const timeoutMs = timeoutOption('serve', values.timeout);
  const data = values.data ?? DEFAULT_DATASET;
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    usageError('serve', `--port must be an integer 0–65535; got "${values.port}".`);
  }
  const isUrl = /^https?:\/\//i.test(data);
  if (!isUrl && !existsSync(`${data}/catalog.json`)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  if (values.static && !existsSync(values.static)) {
    process.stderr.write(`No folder at ${values.static}. Build the site first (npm run build).\n`);
    return 1;
  }
  const engine = createNodeEngine(data, { timeoutMs, followLinks: values['follow-links'] });
  const running = await startServer({
    engine,
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.static ? { staticRoot: values.static } : isUrl ? {} : { staticRoot: data }),
    // The dataset folder serves what its catalog and index list, unless asked to serve it as it is.
    listedOnly: !values.static && !isUrl && values['all-files'] !== true,
    followLinks: values['follow-links'] === true,
  });
  const app = values.static && existsSync(`${values.static}/index.html`) ? `\n  open the app: ${running.url}` : '';
  process.stderr.write(`climate-query serving ${data} at ${running.url} (POST ${running.url}api/<endpoint>/)${app}\n`);
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.close();
  await engine.close();
  process.stderr.write('climate-query: stopped.\n');
  return 0;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
