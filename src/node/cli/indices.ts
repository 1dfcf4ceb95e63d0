/** `climate-query indices`: chill, heat and frost indices from station temperatures at one place. */
import { DEFAULT_DATASET } from '../demo.ts';
import { CROP_GDD_BASE, INDEX_DEFAULTS, STATION_INDEX_NAMES } from '../../contract/station-indices.ts';
import { LIMITS } from '../../contract/validate.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';
import { answer } from './query.ts';

const HELP: Help = {
  name: 'indices',
  usage: `Usage: climate-query indices <WKT> --indices NAME[,NAME…] --from yyyy-mm-dd --to yyyy-mm-dd
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
};

/** `climate-query indices`: the station-indices request built from options, answered as `query` answers it. */
async function run(args: string[]): Promise<number> {
  const text = { type: 'string' } as const;
  const { values, positionals } = parseCommand(HELP, args, {
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
  if (positionals.length !== 1) usageError(HELP, 'needs one WKT argument (quote it: "POINT (19.31 -33.37)").');
  if (!values.indices || !values.from || !values.to) usageError(HELP, 'needs --indices, --from and --to.');
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
  return answer(HELP, 'station-indices', JSON.stringify(body), values);
}

/** The `indices` command. */
export const indicesCommand: CliCommand = { ...HELP, run };
