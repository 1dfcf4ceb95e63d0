/** `climate-query sql`: read-only SQL over station records (native DuckDB). */
import { existsSync } from 'node:fs';
import { toClimateQueryError } from '../../contract/errors.ts';
import { DEFAULT_DATASET } from '../demo.ts';
import { createNodeEngine } from '../node-engine.ts';
import { sqlResultCsv } from '../../sql/sql-csv.ts';
import { STATION_TIME_SCALES, TIME_SCALES } from '../../contract/time-scales.ts';
import {
  type CliCommand,
  type Help,
  exitStatusOf,
  orList,
  parseCommand,
  readStdin,
  timeoutOption,
  usageError,
} from './command.ts';

const HELP: Help = {
  name: 'sql',
  usage: `Usage: climate-query sql <query|-> --stations ID[,ID…] --time-scale ${STATION_TIME_SCALES.join('|')}
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
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
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
    usageError(HELP, 'needs the SQL text (quoted, one argument) or - to read it from stdin.');
  for (const required of ['stations', 'time-scale', 'from', 'to'] as const) {
    if (values[required] === undefined) usageError(HELP, `--${required} is required.`);
  }
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') usageError(HELP, `--format must be csv or json; got "${format}".`);
  let maxRows: number | undefined;
  if (values['max-rows'] !== undefined) {
    maxRows = Number(values['max-rows']);
    if (!Number.isInteger(maxRows)) usageError(HELP, `--max-rows must be a whole number; got "${values['max-rows']}".`);
  }
  const list = (v: string) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const timeoutMs = timeoutOption(HELP, values.timeout);
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

/** The `sql` command. */
export const sqlCommand: CliCommand = { ...HELP, run };
