/**
 * `climate-query import FORMAT FILE…`: a station archive as its source publishes it, read by its
 * format's reader (station-formats.ts), written as the station build's own input files (stations
 * and daily CSV, in the contract's types and units) and built from them with every check a build
 * makes. The import report says, per station and data type, what was read and what became of it.
 */
import { truncate } from '../../contract/quote.ts';
import type { BuildProgress } from '../build-progress.ts';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BuildError } from '../build-error.ts';
import { readCatalogOrEmpty } from '../dataset/dataset-writer.ts';
import { openBuildDuckDB } from '../build-duckdb.ts';
import { buildStationsWithReport, type StationBuildReport } from '../stations-build.ts';
import { Imported, type ImportScale, type TypeCounts } from './imported.ts';
import { importOffset, keepDatasetRows } from './kept-rows.ts';
import { type ImportExtras, type StationFormat, stationFormat } from './station-formats.ts';
import { workFolder } from '../work-folder.ts';

export interface StationImportOptions {
  format: string;
  files: readonly string[];
  /** The dataset folder built into (additive, as `build`). */
  out: string;
  /** The source's station list, for formats whose files carry no positions (GHCN-Daily). */
  stationList?: string;
  /** The mapping file of a `csv` export (mapping.ts). */
  mapping?: string;
  name?: string;
  replace?: boolean;
  keepImplausible?: boolean;
  timeZone?: string;
  /** Told each step as it starts, for a progress line. */
  progress?: BuildProgress;
}

/** What an import read and did, per station and data type (written beside the build's report). */
export interface ImportReport {
  format: string;
  source: string;
  utcDays: boolean;
  files: Array<{ path: string; rows: number; note?: string }>;
  stations: Array<{
    station_id: string;
    name: string;
    types: Record<string, TypeCounts>;
    /** A mapped export's hours by how many readings made them (`{"6": 720}`: 720 hours of six 10-minute readings). */
    readingsPerHour?: Record<string, number>;
    /** Rows of this station the dataset held at periods the import did not give, kept, by scale. */
    keptFromDataset?: Partial<Record<'hourly' | 'daily', number>>;
  }>;
  /** Source fields no contract type takes, with the values they held: not imported. */
  unmapped: Record<string, number>;
  totals: { read: number; kept: number; dropped: number; trace: number; derived: number };
}

/** CSV field: quoted when it holds a comma, quote or line break. */
function csv(v: string | number | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The report of `imported`. */
export function importReport(format: string, imported: Imported, extras: ImportExtras = {}): ImportReport {
  const f = stationFormat(format);
  const totals = { read: 0, kept: 0, dropped: 0, trace: 0, derived: 0 };
  const stations = [...imported.counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, byType]) => {
      const types = Object.fromEntries([...byType.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
      for (const c of byType.values()) {
        totals.read += c.read;
        totals.kept += c.kept;
        totals.trace += c.trace;
        totals.derived += c.derived;
        totals.dropped += Object.values(c.dropped).reduce((a, b) => a + b, 0);
      }
      const per = extras.readingsPerHour?.get(id);
      return {
        station_id: id,
        name: imported.stations.get(id)?.name ?? '',
        types,
        ...(per ? { readingsPerHour: Object.fromEntries([...per.entries()].sort(([a], [b]) => a - b)) } : {}),
      };
    });
  return {
    format,
    source: f.attribution,
    utcDays: f.utcDays,
    files: imported.files,
    stations,
    unmapped: Object.fromEntries(imported.unmapped),
    totals,
  };
}

/** The import report in words, a line per station and type. */
export function importReportText(r: ImportReport): string {
  const lines = [
    `Imported ${r.format}: ${r.files.length} file(s), ${r.files.reduce((n, f) => n + f.rows, 0)} row(s); ${r.totals.read} value(s) read, ${r.totals.kept} kept, ${r.totals.dropped} dropped, ${r.totals.trace} trace as 0, ${r.totals.derived} derived by the source.`,
  ];
  if (r.utcDays) lines.push('  Its days are UTC days: the catalog says so; they are not the stations’ local days.');
  for (const s of r.stations) {
    lines.push(`  ${s.station_id}${s.name ? ` ${s.name}` : ''}:`);
    if (s.keptFromDataset)
      lines.push(
        `    kept from the dataset (periods this import does not give): ${Object.entries(s.keptFromDataset)
          .map(([scale, n]) => `${n} ${scale} rows`)
          .join(', ')}`,
      );
    if (s.readingsPerHour)
      lines.push(
        `    hours by readings in them: ${Object.entries(s.readingsPerHour)
          .map(([n, hours]) => `${hours} of ${n}`)
          .join(', ')}`,
      );
    for (const [type, c] of Object.entries(s.types)) {
      const dropped = Object.entries(c.dropped)
        .map(([why, n]) => `${n} ${why}`)
        .join(', ');
      lines.push(
        `    ${type}: ${c.read} read, ${c.kept} kept${dropped ? `, dropped: ${dropped}` : ''}${c.trace ? `, ${c.trace} trace as 0` : ''}${c.derived ? `, ${c.derived} derived by the source` : ''}`,
      );
    }
  }
  for (const f of r.files) if (f.note) lines.push(`  ${f.path}: ${f.note}`);
  const unmapped = Object.entries(r.unmapped);
  if (unmapped.length > 0)
    lines.push(
      `  Not imported (no data type of the contract takes them): ${unmapped.map(([f, n]) => `${f} (${n} values)`).join(', ')}.`,
    );
  return `${lines.join('\n')}\n`;
}

/** The files grouped by the station their names give (the source's naming), in the order given; files whose names say nothing form one group. */
function groupByStation(files: readonly string[], format: StationFormat): string[][] {
  const groups = new Map<string, string[]>();
  for (const f of files) {
    const key = format.stationOfFile?.(f) ?? '';
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()];
}

/** One group's files read by the format, with a missing or unreadable file named. */
async function readPart(
  format: StationFormat,
  files: readonly string[],
  o: StationImportOptions,
  extras: ImportExtras,
): Promise<Imported> {
  try {
    return await format.read(files, {
      ...(o.stationList ? { stationList: o.stationList } : {}),
      ...(o.mapping ? { mapping: o.mapping } : {}),
      report: extras,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e?.code === 'ENOENT' || e?.code === 'EISDIR' || e?.code === 'EACCES') {
      throw new BuildError('unreadable_input', `${e.path ?? 'an input'} could not be read (${e.code}).`, {
        file: e.path ?? '',
        cause: err,
      });
    }
    if (err instanceof BuildError) throw err;
    // Whatever else a reader meets in a file it was not written for is said by the file, not as a stack.
    const named = files.length === 1 ? files[0]! : `${files[0]} (or another of its ${files.length} files)`;
    throw new BuildError(
      'invalid_input',
      `${named} could not be read as ${o.format}: ${truncate(String((err as Error)?.message ?? err))}`,
      { file: files[0]!, cause: err },
    );
  }
}

/** Reads, converts and builds; returns the import's report and the build's. */
export async function importStations(
  o: StationImportOptions,
): Promise<{ report: ImportReport; build: StationBuildReport }> {
  const format = stationFormat(o.format);
  if (o.files.length === 0)
    throw new BuildError('invalid_option', `Name the ${o.format} files to import.`, { option: 'files' });
  if (format.stationList !== null && !o.stationList) {
    throw new BuildError(
      'invalid_option',
      `${o.format} files hold no station positions: pass the source's station list with --stations (${format.stationList}).`,
      { option: 'stations' },
    );
  }
  if (format.mapped && !o.mapping) {
    throw new BuildError(
      'invalid_option',
      `a ${o.format} export is read by a mapping file (--mapping FILE); \`climate-query import ${o.format} FILE\` without one proposes it.`,
      { option: 'mapping' },
    );
  }
  // A station at a time (files grouped by the station their name gives), so memory holds one
  // station's records, not the archive's: 600 stations × 10 hourly years stream through.
  const total = new Imported();
  const extras: ImportExtras = {};
  const work = await workFolder('import');
  try {
    const catalog = await readCatalogOrEmpty(o.out, o.name ?? 'dataset');
    const offset = importOffset(catalog, o.timeZone, o.replace ?? false);
    const duck = await openBuildDuckDB(work);
    const scaleFiles: Record<ImportScale, string[]> = { hourly: [], daily: [] };
    const kept = new Map<string, Partial<Record<ImportScale, number>>>();
    /** Station → the files it came from, to refuse one station in two groups (their rows would not merge). */
    const whence = new Map<string, string>();
    try {
      let g = 0;
      const groups = groupByStation(o.files, format);
      for (const files of groups) {
        g++;
        o.progress?.(`reading the ${o.format} files`, `station ${g} of ${groups.length}`);
        const part = await readPart(format, files, o, extras);
        for (const scale of ['hourly', 'daily'] as const) {
          for (const id of part.rows[scale].keys()) {
            const before = whence.get(id);
            if (before !== undefined && before !== files[0]) {
              throw new BuildError(
                'invalid_input',
                `station ${id} is in ${before} and in ${files[0]}, whose names do not say it is one station: import its files named as the source names them (by station), or in one file.`,
                { file: files[0]! },
              );
            }
            whence.set(id, files[0]!);
          }
        }
        // A year added to a station keeps the years the dataset holds (a build replaces a series whole).
        for (const [id, k] of await keepDatasetRows(o.out, catalog, part, offset, o.replace ?? false, duck.con))
          kept.set(id, { ...kept.get(id), ...k });
        for (const scale of ['hourly', 'daily'] as const) {
          const rows = part.rows[scale];
          if (rows.size === 0) continue;
          const types = [
            ...new Set([...rows.values()].flatMap((times) => [...times.values()].flatMap((r) => Object.keys(r)))),
          ].sort();
          const lines = [`station_id,time,${types.join(',')}`];
          for (const [id, times] of [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
            for (const [time, row] of [...times.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
              lines.push([csv(id), time, ...types.map((t) => (row[t] === undefined ? '' : String(row[t])))].join(','));
            }
            total.rows[scale].set(id, new Map());
          }
          const file = join(work, `${scale}-${g}.csv`);
          await writeFile(file, `${lines.join('\n')}\n`);
          scaleFiles[scale].push(file);
        }
        total.absorb(part);
      }
    } finally {
      duck.close();
    }
    const report = importReport(o.format, total, extras);
    for (const s of report.stations) {
      const k = kept.get(s.station_id);
      if (k) s.keptFromDataset = k;
    }
    if (scaleFiles.hourly.length === 0 && scaleFiles.daily.length === 0) {
      throw new BuildError(
        'invalid_input',
        `${o.files.length} ${o.format} file(s) held no value of a data type the contract has; nothing was built.\n${importReportText(report)}`,
      );
    }
    const stations = [...total.stations.values()].filter((s) => total.holds(s.station_id));
    await writeFile(
      join(work, 'stations.csv'),
      `station_id,name,lat,lon,elevation\n${stations.map((s) => [s.station_id, s.name, s.lat, s.lon, s.elevation].map(csv).join(',')).join('\n')}\n`,
    );
    const given = Object.fromEntries(
      (['hourly', 'daily'] as const).filter((sc) => scaleFiles[sc].length > 0).map((sc) => [sc, scaleFiles[sc]]),
    );
    const { report: build } = await buildStationsWithReport(
      { stations: join(work, 'stations.csv'), ...given },
      o.out,
      o.name ?? 'dataset',
      {
        replace: o.replace ?? false,
        keepImplausible: o.keepImplausible ?? false,
        ...(o.timeZone !== undefined ? { timeZone: o.timeZone } : {}),
        ...(format.attribution ? { attribution: format.attribution } : {}),
        ...(o.progress ? { progress: o.progress } : {}),
      },
    );
    // Beside the dataset's files, as the build wrote them (a temporary name, then one rename).
    const path = join(o.out, `import-report-${o.format}.json`);
    await writeFile(`${path}.${process.pid}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
    await rename(`${path}.${process.pid}.tmp`, path);
    return { report, build };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
