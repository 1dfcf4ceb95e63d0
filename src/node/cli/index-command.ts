/** `climate-query index`. */
import { countOf } from '../../contract/quote.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'index',
  usage: `Usage: climate-query index DIR [--name NAME] [--time-zone ZONE]

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
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    name: { type: 'string' },
    'time-zone': { type: 'string' },
  });
  const [dir] = positionals;
  if (!dir || positionals.length > 1)
    usageError(HELP, 'needs one DIR holding stations/stations.parquet and stations/<scale>/….');
  const { indexStations } = await import('../../builder/station-index-build.ts');
  const { resolveTimeZone } = await import('../../builder/time-zone.ts');
  const t0 = Date.now();
  const zone = values['time-zone'] === undefined ? undefined : resolveTimeZone(values['time-zone']);
  const { progressLines } = await import('../heartbeat.ts');
  const lines = progressLines('index: ');
  const section = await indexStations(dir, values.name ?? 'dataset', zone, lines.progress).finally(() => lines.stop());
  const scales = Object.entries(section.dataTypes)
    .map(([s, t]) => `${s}: ${t!.join(', ')}`)
    .join('; ');
  process.stderr.write(
    `Indexed ${countOf(section.count, 'station')} in ${dir} (${scales}; times in UTC${section.utcOffset}) in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

/** The `index` command. */
export const indexCommand: CliCommand = { ...HELP, run };
