/** `climate-query query`: answers one request file as the service would, and the time scales and types its help lists. */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { ENDPOINTS, type Endpoint } from '../../contract/types.ts';
import { toClimateQueryError } from '../../contract/errors.ts';
import { DEFAULT_DATASET } from '../demo.ts';
import { createNodeEngine } from '../node-engine.ts';
import { parseAllowedOrigin } from '../foreign-guard.ts';
import { STATION_TIME_SCALES, TIME_SCALES, TIME_SCALE_NAMES } from '../../contract/time-scales.ts';
import { STATION_TYPES } from '../../contract/station-data-types.ts';
import {
  type CliCommand,
  type Help,
  exitStatusOf,
  parseCommand,
  readStdin,
  timeoutOption,
  usageError,
  wrapList,
} from './command.ts';

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

const HELP: Help = {
  name: 'query',
  usage: `Usage: climate-query query <endpoint> <request.json|-> [--data DIR|URL] [--timeout SECONDS] [--follow-links]
                            [--allow-origin ORIGIN ...]

  Answers one request as the service would and prints the answer JSON.
  endpoint: ${ENDPOINTS.join(', ')}
  request:  a JSON file, or - to read it from stdin (docs/contract.md)

Options:
  --data DIR|URL   dataset to query (default: the demo dataset, ${DEFAULT_DATASET})
  --timeout S      give up after S seconds (default 30) with upstream_timeout (504)
  --follow-links   read files a symlink in the dataset folder leads out of it to (refused by default)
  --allow-origin O read a layer the catalog references at a URL of origin O (https://host[:port]);
                   repeatable. None by default; internal addresses only when O names them by IP
  -h, --help       this help

${scalesText()}
Exit codes:
  0  the answer is on stdout
  1  the dataset is missing, unreadable or changed since it was built (dataset_changed), the query timed out, or an internal error (error JSON on stdout)
  2  a bad request (error JSON {"error":{...}} on stdout) or bad arguments (usage on stderr)
`,
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    data: { type: 'string' },
    timeout: { type: 'string' },
    'follow-links': { type: 'boolean' },
    'all-files': { type: 'boolean' },
    'allow-origin': { type: 'string', multiple: true },
  });
  const [endpoint, file] = positionals;
  if (!endpoint || !ENDPOINTS.includes(endpoint as Endpoint) || !file || positionals.length > 2) {
    usageError(HELP, `needs an endpoint (${ENDPOINTS.join(', ')}) and a request file or -.`);
  }
  // Arguments first: a bad --timeout is a usage error even when the file is missing too.
  timeoutOption(HELP, values.timeout);
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  return answer(HELP, endpoint as Endpoint, text, values);
}

/** Answers one request body on the dataset the options name and prints the answer or error JSON; returns the exit status. */
export async function answer(
  help: Help,
  endpoint: Endpoint,
  text: string,
  values: { data?: string; timeout?: string; 'follow-links'?: boolean; 'allow-origin'?: string[] },
): Promise<number> {
  const timeoutMs = timeoutOption(help, values.timeout);
  const data = values.data ?? DEFAULT_DATASET;
  if (!values.data && !existsSync(data)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const allowOrigins = allowOriginOption(help, values['allow-origin']);
  const engine = createNodeEngine(data, { timeoutMs, followLinks: values['follow-links'], allowOrigins });
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

/** The `query` command. */
export const queryCommand: CliCommand = { ...HELP, run };

/** The origins `--allow-origin` names, each checked; a bad one is a usage error. */
export function allowOriginOption(help: Help, given: string[] | undefined): string[] {
  return (given ?? []).map((o) => {
    try {
      return parseAllowedOrigin(o);
    } catch (err) {
      return usageError(help, (err as Error).message);
    }
  });
}
