/** `climate-query import FORMAT FILE... --out DIR`: station archives as their sources publish them. */
import { writeFile } from 'node:fs/promises';
import { STATION_FORMATS } from '../../builder/import/station-formats.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'import',
  usage: `Usage: climate-query import FORMAT FILE... --out DIR [--stations LIST] [--name NAME]
                             [--time-zone ZONE] [--replace] [--keep-implausible] [--report FILE]
       climate-query import csv FILE... --mapping MAP.json --out DIR
       climate-query import csv FILE          (proposes FILE.mapping.json; builds nothing)

  Imports a station archive as its source publishes it: converts its values into the
  contract's data types and units, drops its missing markers and the values its quality
  flags fail, and builds them into DIR as \`climate-query build --stations\` does (additive:
  the dataset's other stations and layers stay). Prints what was read and what became of
  every value, per station and data type, and writes it to DIR/import-report-FORMAT.json.
  The source's name, licence and citation go into the catalog's attribution.

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
  });
  const [format, ...files] = positionals;
  if (format === undefined) usageError(HELP, `name the format: ${Object.keys(STATION_FORMATS).join(', ')}.`);
  if (!Object.hasOwn(STATION_FORMATS, format))
    usageError(HELP, `"${format}" is not a format this version imports: ${Object.keys(STATION_FORMATS).join(', ')}.`);
  if (files.length === 0) usageError(HELP, `name the ${format} files to import.`);
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
  });
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
