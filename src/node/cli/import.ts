/** `climate-query import FORMAT FILE... --out DIR`: station archives as their sources publish them. */
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { NOAA_PATHS, NOAA_ROOT } from '../../builder/import/noaa-paths.ts';
import { STATION_FORMATS } from '../../builder/import/station-formats.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'import',
  usage: `Usage: climate-query import FORMAT FILE... --out DIR [--stations LIST] [--name NAME]
                             [--time-zone ZONE] [--replace] [--keep-implausible] [--report FILE]
       climate-query import csv FILE... --mapping MAP.json --out DIR
       climate-query import csv FILE          (proposes FILE.mapping.json; builds nothing)
       climate-query import ghcnh|gsod|isd-lite|ghcnd --station ID... --years A-B --out DIR
                             [--mirror URL] [--cache DIR]   (downloads from NOAA NCEI first)
       climate-query import ghcnh|gsod|isd-lite|ghcnd --near LON,LAT [--radius KM] --years A-B --out DIR

  Imports a station archive as its source publishes it: converts its values into the
  contract's data types and units, drops its missing markers and the values its quality
  flags fail, and builds them into DIR as \`climate-query build --stations\` does (additive:
  the dataset's other stations and layers stay). Prints what was read and what became of
  every value, per station and data type, and writes it to DIR/import-report-FORMAT.json.
  The source's name, licence and citation go into the catalog's attribution.

  With --station (repeatable) and --years instead of files, the archive's files (and
  its station list) are downloaded from NOAA NCEI's documented paths first, into a
  cache that keeps those paths (--cache; default ~/.cache/climate-query/noaa): a run
  fetches only what the cache lacks, resumes a cut file, and says which station-years
  NCEI has no file for. --mirror URL (or CLIMATE_QUERY_NOAA_MIRROR) reads a mirror of
  NCEI's folders instead.

Formats:
${Object.entries(STATION_FORMATS)
  .map(([name, f]) => `  ${name.padEnd(8)} ${f.title}`)
  .join('\n')}

Options:
  --out DIR            the dataset folder to build into
  --mapping FILE       csv: how the export's columns become data types (docs/data.md 1c)
  --stations LIST      the source's station list (${Object.entries(STATION_FORMATS)
    .filter(([, f]) => f.stationList !== null)
    .map(([n, f]) => `${n}: ${f.stationList}`)
    .join('; ')})
  --name NAME          the dataset's name, when DIR has no catalog yet (default: dataset)
  --time-zone ZONE     the dataset's zone, when DIR has no catalog yet (as build)
  --replace            drop the stations DIR holds: only these remain
  --keep-implausible   keep values outside their type's physical bounds (counted)
  --report FILE        also write the build's report (JSON) to FILE
  --station ID         download this station's files (repeatable): GHCN ids (SFM00068816),
                       or USAF-WBAN for gsod and isd-lite (688160-99999)
  --near LON,LAT       download the stations within --radius of this point (the archive's
                       station list is downloaded to find them; the nearest 25 at most)
  --radius KM          with --near: how far to look (default 50, at most 500)
  --years A-B          with --station or --near: the years to download (one year: A)
  --mirror URL         with --station: NCEI's root, or a mirror's (default ${NOAA_ROOT})
  --cache DIR          with --station: where downloads are kept
  -h, --help           this help

Exit codes:
  0  imported
  1  a file could not be read or built (named, with the line)
  2  bad arguments; or a csv export without --mapping (a mapping was proposed, nothing imported)
`,
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    out: { type: 'string' },
    stations: { type: 'string' },
    mapping: { type: 'string' },
    name: { type: 'string' },
    'time-zone': { type: 'string' },
    replace: { type: 'boolean' },
    'keep-implausible': { type: 'boolean' },
    report: { type: 'string' },
    station: { type: 'string', multiple: true },
    near: { type: 'string' },
    radius: { type: 'string' },
    years: { type: 'string' },
    mirror: { type: 'string' },
    cache: { type: 'string' },
  });
  const [format, ...files] = positionals;
  if (format === undefined) usageError(HELP, `name the format: ${Object.keys(STATION_FORMATS).join(', ')}.`);
  if (!Object.hasOwn(STATION_FORMATS, format))
    usageError(HELP, `"${format}" is not a format this version imports: ${Object.keys(STATION_FORMATS).join(', ')}.`);
  if (values.station !== undefined || values.near !== undefined) {
    if (files.length > 0) usageError(HELP, 'give files, or --station to download them, not both.');
    if (!Object.hasOwn(NOAA_PATHS, format))
      usageError(HELP, `--station downloads ${Object.keys(NOAA_PATHS).join(', ')}; ${format} files are named.`);
    if (!values.out) usageError(HELP, 'needs --out DIR, the dataset folder to build into.');
    const m = /^(\d{4})(?:-(\d{4}))?$/.exec(values.years ?? '');
    const years = m ? ([Number(m[1]), Number(m[2] ?? m[1])] as const) : null;
    if (!years || years[0] < 1900 || years[1] < years[0] || years[1] > new Date().getUTCFullYear())
      usageError(HELP, `--years must be a year or two (2015-2024), up to this year; got "${values.years ?? ''}".`);
    const root = values.mirror ?? process.env.CLIMATE_QUERY_NOAA_MIRROR ?? NOAA_ROOT;
    if (!/^https?:\/\//i.test(root)) usageError(HELP, `--mirror must be an http(s) URL; got "${root}".`);
    const { downloadArchive, stationsNear } = await import('../../builder/import/download.ts');
    const cache = values.cache ?? join(homedir(), '.cache', 'climate-query', 'noaa');
    const stations = [...(values.station ?? [])];
    if (values.near !== undefined) {
      const p = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(values.near);
      const near = p ? ([Number(p[1]), Number(p[2])] as const) : null;
      if (!near || Math.abs(near[0]) > 180 || Math.abs(near[1]) > 90)
        usageError(HELP, `--near must be LON,LAT in degrees (18.86,-33.93); got "${values.near}".`);
      const radiusKm = values.radius === undefined ? 50 : Number(values.radius);
      if (!(radiusKm > 0 && radiusKm <= 500)) usageError(HELP, `--radius must be 0–500 km; got "${values.radius}".`);
      const found = await stationsNear({
        format,
        near: near!,
        radiusKm,
        root: root.endsWith('/') ? root : `${root}/`,
        cache,
      });
      process.stderr.write(
        `${found.stations.length} ${format} station(s) within ${radiusKm} km of ${near!.join(',')}${found.more ? ` (the nearest; ${found.more} more left out)` : ''}:\n${found.stations.map((s) => `  ${s.id}  ${s.name}  ${s.km.toFixed(1)} km`).join('\n')}\n`,
      );
      stations.push(...found.stations.map((s) => s.id));
      if (stations.length === 0) {
        process.stderr.write('Nothing to import.\n');
        return 1;
      }
    }
    const got = await downloadArchive({
      format,
      stations,
      years: years!,
      root: root.endsWith('/') ? root : `${root}/`,
      cache,
      progress: (done, total, path) =>
        process.stderr.write(
          `\rdownloading ${done}/${total} ${path.split('/').pop()}\x1b[K${done === total ? '\n' : ''}`,
        ),
    });
    process.stderr.write(
      `${got.fetched} file(s) downloaded (${(got.bytes / 1e6).toFixed(1)} MB), ${got.files.length - got.fetched} already in ${cache}.\n`,
    );
    if (got.missing.length > 0) process.stderr.write(`NCEI has no ${format} file for: ${got.missing.join(', ')}.\n`);
    if (got.files.length === 0) {
      process.stderr.write('Nothing to import.\n');
      return 1;
    }
    files.push(...got.files);
    if (values.stations === undefined && got.stationList) values.stations = got.stationList;
  }
  if (files.length === 0)
    usageError(HELP, `name the ${format} files to import, or --station and --years to download them.`);
  if (STATION_FORMATS[format]!.mapped && values.mapping === undefined) {
    // Never built from a guess: the proposal is written for a person to check and pass back.
    const { writeProposal } = await import('../../builder/import/mapping-proposal.ts');
    const out = `${files[0]}.mapping.json`;
    const { text, notes } = await writeProposal(files[0]!, out);
    process.stdout.write(text);
    process.stderr.write(
      `A proposed mapping of ${files[0]} is written to ${out} (above). Nothing was imported. Check it — ${notes.join(' ')} — then run:\n  climate-query import ${format} ${files.join(' ')} --mapping ${out} --out DIR\n`,
    );
    return 2;
  }
  if (!values.out) usageError(HELP, 'needs --out DIR, the dataset folder to build into.');
  const { importStations, importReportText } = await import('../../builder/import/station-import.ts');
  const { reportText } = await import('../../builder/stations-build.ts');
  const t0 = Date.now();
  const { progressLines } = await import('../heartbeat.ts');
  const lines = progressLines('import: ');
  const { report, build } = await importStations({
    format,
    files,
    out: values.out,
    ...(values.stations !== undefined ? { stationList: values.stations } : {}),
    ...(values.mapping !== undefined ? { mapping: values.mapping } : {}),
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values['time-zone'] !== undefined ? { timeZone: values['time-zone'] } : {}),
    replace: values.replace ?? false,
    keepImplausible: values['keep-implausible'] ?? false,
    progress: lines.progress,
  }).finally(() => lines.stop());
  if (values.report) await writeFile(values.report, `${JSON.stringify(build, null, 2)}\n`);
  process.stderr.write(importReportText(report));
  process.stderr.write(reportText(build));
  process.stderr.write(
    `Imported ${report.stations.length} station(s) into ${values.out} in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

/** The `import` command. */
export const importCommand: CliCommand = { ...HELP, run };
