/**
 * The `climate-query` command line: query a dataset, build one from your
 * own files, make the demo dataset. Each command is one module in cli/
 * ({name, usage, run}); this table dispatches, prints the overview and
 * maps every error to one exit status (cli-exit.ts): 0 on success, 2 on a
 * bad request or bad input (the error JSON is on stdout for queries), 1 on
 * anything else.
 */
import { exitFor } from './cli-exit.ts';
import { missingPackageMessage } from './optional-packages.ts';
import { packageVersion } from './package-version.ts';
import { type CliCommand, UsageExit } from './cli/command.ts';

/**
 * Every command, by name, loaded when it is asked for: the overview, a command's `--help` and a
 * usage error then load one small module, not the engine, DuckDB and every builder (importing all
 * ten took 380 ms of the CLI's 700 ms start; docs/performance.md). A new command is its module and
 * its line here.
 */
export const COMMANDS: ReadonlyMap<string, () => Promise<CliCommand>> = new Map([
  ['query', () => import('./cli/query.ts').then((m) => m.queryCommand)],
  ['indices', () => import('./cli/indices.ts').then((m) => m.indicesCommand)],
  ['sql', () => import('./cli/sql.ts').then((m) => m.sqlCommand)],
  ['build', () => import('./cli/build.ts').then((m) => m.buildCommand)],
  ['import', () => import('./cli/import.ts').then((m) => m.importCommand)],
  ['layers', () => import('./cli/layers.ts').then((m) => m.layersCommand)],
  ['stations', () => import('./cli/stations.ts').then((m) => m.stationsCommand)],
  ['index', () => import('./cli/index-command.ts').then((m) => m.indexCommand)],
  ['demo', () => import('./cli/demo.ts').then((m) => m.demoCommand)],
  ['serve', () => import('./cli/serve.ts').then((m) => m.serveCommand)],
]);

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
  climate-query import ghcnd|ghcnh|gsod|isd-lite|meteostat|csv FILE... --out DIR [--stations LIST] [--mapping MAP]
      station archives as NOAA publishes them, and exports by a mapping file, converted and built.
  climate-query index DIR [--name NAME] [--time-zone ZONE]
  climate-query serve [--data DIR|URL] [--port 8787] [--host 127.0.0.1]
  climate-query demo [--out DIR] [--if-missing]
  climate-query <command> --help     usage, options and exit codes of one command
  climate-query --version

Exit codes: 0 success, 1 failure (data, I/O, internal), 2 bad arguments or a bad request.
`;

/** Runs the CLI with `argv` (without node and script) and returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const load = command === undefined ? undefined : COMMANDS.get(command);
    if (load) return await (await load()).run(rest);
    switch (command) {
      case '--version':
      case '-v':
        process.stdout.write(`${packageVersion()}\n`);
        return 0;
      case 'help':
      case '--help':
      case '-h': {
        const of = rest[0] === undefined ? undefined : COMMANDS.get(rest[0]);
        process.stdout.write(of ? (await of()).usage : USAGE);
        return 0;
      }
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
