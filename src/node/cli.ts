/**
 * The `climate-query` command line: query a dataset, build one from your
 * own files, make the demo dataset. `main` returns the exit status: 0 on
 * success, 2 on a bad request or bad input (the error JSON is on stdout for
 * queries), 1 on anything else.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ENDPOINTS, type Endpoint } from '../contract/types.ts';
import { ClimateQueryError, toClimateQueryError } from '../contract/errors.ts';
import { BuildInputError, buildStations } from '../build/stations-build.ts';
import { buildRasterLayer } from '../build/raster-build.ts';
import { parseTimeScale } from '../build/raster-build-declare.ts';
import { catalogLayersText, layerText } from './layer-text.ts';
import { DEFAULT_DATASET, buildDemo } from './demo.ts';
import { createNodeEngine, type BackendName } from './node-engine.ts';
import { startServer } from './server.ts';

const USAGE = `climate-query: climate-data queries on a static dataset, with no server.

Usage:
  climate-query query <endpoint> <request.json|-> [--data DIR|URL] [--backend native|wasm]
      endpoint: ${ENDPOINTS.join(', ')}
      Prints the answer JSON. A bad request prints {"error":{...}} and exits 2.
      point and polygon ask for a raster layer the dataset declares: list them
      (dataType, subDataType, dataExtent, timeScale, dates, unit) with \`climate-query layers\`.
  climate-query layers [--data DIR|URL]
      Lists the dataset's raster layers and how to ask for each.
  climate-query build --out DIR --stations FILE [--hourly FILE] [--daily FILE] [--monthly FILE] [--name NAME]
      Adds station data to a dataset from CSV or Parquet files (docs/data.md).
  climate-query build --out DIR --layer NAME[/SUB] --unit UNIT --time-scale SCALE
        [--dates D1,D2,… | --date-pattern PATTERN] [--extent NAME] [--description TEXT]
        [--attribution TEXT] [--scale S] [--offset O] [--resampling bilinear] FILE...
      Adds (or replaces) one raster layer from GeoTIFFs in any CRS GDAL reads (docs/layers.md).
      SCALE: daily, monthly, annual, calendar_month, or none (one undated grid).
      Dates: --dates (one per band, in file order), --date-pattern 'tmin_{yyyy}{mm}{dd}.tif'
      (single-band files), or else band descriptions that are dates. Never guessed.
      --extent: tc, sa or a name the dataset has (checked against the grid), or a new name
      (takes the grid's bounds). Contract names (temp/min, rain, …) need no --unit/--time-scale.
  climate-query serve [--data DIR|URL] [--port 8787] [--host 127.0.0.1]
      Serves POST /api/<endpoint>/ and the dataset's files (Range, HEAD, CORS). Ctrl-C stops it.
  climate-query demo [--out DIR] [--if-missing]
      Writes the synthetic demo dataset (default ${DEFAULT_DATASET}).

Options:
  --data DIR|URL   dataset to query (default: the demo dataset, ${DEFAULT_DATASET})
  --backend        SQL engine for station queries: native (default for folders) or wasm (DuckDB-WASM, as in the browser)
`;

/** Runs the CLI with `argv` (without node and script) and returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'query':
        return await queryCommand(rest);
      case 'build':
        return await buildCommand(rest);
      case 'layers':
        return await layersCommand(rest);
      case 'demo':
        return await demoCommand(rest);
      case 'serve':
        return await serveCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof BuildInputError || err instanceof ClimateQueryError) {
      process.stderr.write(`Input error: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

async function queryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { data: { type: 'string' }, backend: { type: 'string' } },
  });
  const [endpoint, file] = positionals;
  if (!endpoint || !ENDPOINTS.includes(endpoint as Endpoint) || !file) {
    process.stderr.write(`Usage: climate-query query <${ENDPOINTS.join('|')}> <request.json|->\n`);
    return 2;
  }
  const backend = values.backend as BackendName | undefined;
  if (backend !== undefined && backend !== 'native' && backend !== 'wasm') {
    process.stderr.write(`--backend must be native or wasm; got "${backend}".\n`);
    return 2;
  }
  const data = values.data ?? DEFAULT_DATASET;
  if (!values.data && !existsSync(data)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  const engine = createNodeEngine(data, backend);
  try {
    const res = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: text });
    process.stdout.write(`${JSON.stringify(res.body)}\n`);
    if (res.status === 200) return 0;
    return res.status >= 400 && res.status < 500 ? 2 : 1;
  } catch (err) {
    process.stdout.write(`${JSON.stringify(toClimateQueryError(err).toBody())}\n`);
    return 1;
  } finally {
    await engine.close();
  }
}

async function buildCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      layer: { type: 'string' },
      unit: { type: 'string' },
      'time-scale': { type: 'string' },
      dates: { type: 'string' },
      'date-pattern': { type: 'string' },
      extent: { type: 'string' },
      description: { type: 'string' },
      attribution: { type: 'string' },
      resampling: { type: 'string' },
      scale: { type: 'string' },
      offset: { type: 'string' },
      out: { type: 'string' },
      name: { type: 'string' },
      stations: { type: 'string' },
      hourly: { type: 'string' },
      daily: { type: 'string' },
      monthly: { type: 'string' },
    },
  });
  if (values.layer !== undefined) {
    if (!values.out || positionals.length === 0) {
      process.stderr.write('Usage: climate-query build --out DIR --layer NAME[/SUB] --unit UNIT --time-scale SCALE [--dates D1,… | --date-pattern P] [--extent NAME] FILE...\n');
      return 2;
    }
    const [dataType, subDataType, extra] = values.layer.split('/');
    if (!dataType || subDataType === '' || extra !== undefined) {
      process.stderr.write(`--layer must be NAME or NAME/SUB (e.g. elevation, et0/fao56); got "${values.layer}".\n`);
      return 2;
    }
    const number = (flag: string, text: string | undefined) => {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new ClimateQueryError('invalid_field', `--${flag} must be a number; got "${text}".`, { field: flag });
      return n;
    };
    const resampling = values.resampling;
    if (resampling !== undefined && !RESAMPLING.includes(resampling as (typeof RESAMPLING)[number])) {
      throw new ClimateQueryError('invalid_field', `--resampling must be one of ${RESAMPLING.join(', ')}; got "${resampling}".`, { field: 'resampling' });
    }
    const scale = number('scale', values.scale);
    const offset = number('offset', values.offset);
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
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`Built into ${values.out} in ${result.seconds.toFixed(1)} s:\n${layerText(result.layer, result.files)}`);
    return 0;
  }
  if (!values.out || !values.stations) {
    process.stderr.write('Usage: climate-query build --out DIR --stations FILE [--hourly FILE] [--daily FILE] [--monthly FILE]\n');
    return 2;
  }
  const t0 = Date.now();
  const section = await buildStations(
    { stations: values.stations, hourly: values.hourly, daily: values.daily, monthly: values.monthly },
    values.out,
    values.name ?? 'dataset',
  );
  process.stderr.write(`Built ${section.stations.length} stations into ${values.out} in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`);
  return 0;
}

/** gdalwarp methods a build may reproject or regrid with (raster-build.ts). */
const RESAMPLING = ['near', 'bilinear', 'cubic', 'average'] as const;

async function layersCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { data: { type: 'string' } } });
  const data = values.data ?? DEFAULT_DATASET;
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

async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { out: { type: 'string' }, 'if-missing': { type: 'boolean' } } });
  const out = values.out ?? DEFAULT_DATASET;
  if (values['if-missing'] && existsSync(`${out}/catalog.json`)) {
    process.stderr.write(`Demo dataset present at ${out}.\n`);
    return 0;
  }
  await buildDemo(out, (line) => process.stderr.write(`${line}\n`));
  return 0;
}

async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, backend: { type: 'string' } } });
  const data = values.data ?? DEFAULT_DATASET;
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer 0–65535; got "${values.port}".\n`);
    return 2;
  }
  const isUrl = /^https?:\/\//i.test(data);
  if (!isUrl && !existsSync(`${data}/catalog.json`)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const engine = createNodeEngine(data, values.backend as BackendName | undefined);
  const running = await startServer({ engine, port, host: values.host ?? '127.0.0.1', ...(isUrl ? {} : { staticRoot: data }) });
  process.stderr.write(`climate-query serving ${data} at ${running.url} (POST ${running.url}api/<endpoint>/)\n`);
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
