/** `climate-query stations remove`: take stations out of a dataset. */
import { DEFAULT_DATASET } from '../demo.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'stations',
  usage: `Usage: climate-query stations remove ID... [--data DIR]
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
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    data: { type: 'string' },
    all: { type: 'boolean' },
  });
  const [sub, ...ids] = positionals;
  if (sub !== 'remove')
    usageError(
      HELP,
      sub === undefined ? 'say what to do: remove.' : `unknown subcommand "${sub}"; the one there is: remove.`,
    );
  const all = values.all ?? false;
  if (all === ids.length > 0)
    usageError(
      HELP,
      all
        ? '--all removes every station; name no IDs with it.'
        : 'name the stations to remove (their station_id), or pass --all.',
    );
  const data = values.data ?? DEFAULT_DATASET;
  if (/^https?:\/\//i.test(data))
    usageError(HELP, 'remove changes a dataset folder; --data must be a folder, not a URL.');
  const { removeStations } = await import('../../builder/dataset/dataset-remove.ts');
  const r = await removeStations(data, ids, all);
  process.stderr.write(`Removed ${r.removed} from ${data}.\n`);
  return 0;
}

/** The `stations` command. */
export const stationsCommand: CliCommand = { ...HELP, run };
