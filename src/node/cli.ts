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
import { RASTER_DATA_TYPES, type RasterDataType } from '../contract/raster-layers.ts';
import { DEFAULT_DATASET, buildDemo } from './demo.ts';
import { createNodeEngine } from './node-engine.ts';
import { indexStations } from '../build/station-index-build.ts';
import { startServer } from './server.ts';

const USAGE = `climate-query: climate-data queries on a static dataset, with no server.

Usage:
  climate-query query <endpoint> <request.json|-> [--data DIR|URL]
      endpoint: ${ENDPOINTS.join(', ')}
      Prints the answer JSON. A bad request prints {"error":{...}} and exits 2.
  climate-query build --out DIR --stations FILE [--hourly FILE] [--daily FILE] [--monthly FILE] [--name NAME]
      Adds station data to a dataset from CSV or Parquet files (docs/data.md).
  climate-query index DIR [--name NAME]
      Checks a station archive written by any Parquet tool (DIR/stations, docs/data.md) and writes its index.
  climate-query build --out DIR --layer TYPE/SUBTYPE [--scale S] [--offset O] FILE.tif...
      Adds a raster layer from GeoTIFFs: one per date, or multi-band with dates as band descriptions (docs/layers.md).
  climate-query serve [--data DIR|URL] [--port 8787] [--host 127.0.0.1]
      Serves POST /api/<endpoint>/ and the dataset's files (Range, HEAD, CORS). Ctrl-C stops it.
  climate-query demo [--out DIR] [--if-missing]
      Writes the synthetic demo dataset (default ${DEFAULT_DATASET}).

Options:
  --data DIR|URL   dataset to query (default: the demo dataset, ${DEFAULT_DATASET})
  (--backend is gone: every adapter reads station Parquet with hyparquet, as the browser does.)
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
      case 'index':
        return await indexCommand(rest);
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
    options: { data: { type: 'string' } },
  });
  const [endpoint, file] = positionals;
  if (!endpoint || !ENDPOINTS.includes(endpoint as Endpoint) || !file) {
    process.stderr.write(`Usage: climate-query query <${ENDPOINTS.join('|')}> <request.json|->\n`);
    return 2;
  }
  const data = values.data ?? DEFAULT_DATASET;
  if (!values.data && !existsSync(data)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  const engine = createNodeEngine(data);
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
  if (values.out && values.layer) {
    const [dataType, subDataType] = values.layer.split('/');
    if (!RASTER_DATA_TYPES.includes(dataType as RasterDataType) || positionals.length === 0) {
      process.stderr.write(`Usage: climate-query build --out DIR --layer TYPE/SUBTYPE FILE.tif... (TYPE one of ${RASTER_DATA_TYPES.join(', ')})\n`);
      return 2;
    }
    const result = await buildRasterLayer({
      dir: values.out,
      datasetName: values.name ?? 'dataset',
      dataType: dataType as RasterDataType,
      ...(subDataType ? { subDataType } : {}),
      inputs: positionals,
      ...(values.scale !== undefined ? { scale: Number(values.scale) } : {}),
      ...(values.offset !== undefined ? { offset: Number(values.offset) } : {}),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stderr.write(`Built ${values.layer}: ${result.files.length} file(s), ${result.layer.files.reduce((n, f) => n + f.periods.length, 0)} band(s) in ${result.seconds.toFixed(1)} s.\n`);
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
  process.stderr.write(`Built ${section.count} stations into ${values.out} in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`);
  return 0;
}

async function indexCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' } } });
  const [dir] = positionals;
  if (!dir || positionals.length > 1) {
    process.stderr.write('Usage: climate-query index DIR [--name NAME]   (DIR holds stations/stations.parquet and stations/<scale>/…)\n');
    return 2;
  }
  const t0 = Date.now();
  const section = await indexStations(dir, values.name ?? 'dataset');
  const scales = Object.entries(section.dataTypes).map(([s, t]) => `${s}: ${t!.join(', ')}`).join('; ');
  process.stderr.write(`Indexed ${section.count} stations in ${dir} (${scales}) in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`);
  return 0;
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
  const { values } = parseArgs({ args, options: { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } } });
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
  const engine = createNodeEngine(data);
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
