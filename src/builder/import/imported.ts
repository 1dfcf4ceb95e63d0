/**
 * What an importer makes of a source's files before the station build sees them: stations, daily
 * rows in the contract's types and units, and a count of every value read, by what became of it.
 * Each format (one module beside this one, listed in station-formats.ts) fills one of these; the
 * import (station-import.ts) writes it as the build's own input files and builds from them, so a
 * source's values meet the same checks as anyone's files.
 */
import { BuildError } from '../build-error.ts';

/** One station as the source describes it. */
export interface ImportedStation {
  station_id: string;
  name: string;
  lat: number;
  lon: number;
  /** Metres above sea level; null when the source gives none. */
  elevation: number | null;
}

/** What became of the values of one station and data type. */
export interface TypeCounts {
  /** Values the files hold for it (sentinels and flagged ones included). */
  read: number;
  /** Values kept (converted into the contract's unit). */
  kept: number;
  /** Values not kept, by reason: `sentinel` (the source's missing marker), `quality <code>`, … */
  dropped: Record<string, number>;
  /** Trace precipitation, kept as 0. */
  trace: number;
  /** Values the source derived itself (GSOD's `*`: a max or min taken from the hourly reports), kept. */
  derived: number;
}

/** The time scales a source's rows come at. */
export type ImportScale = 'hourly' | 'daily';

/** Everything one import read. */
export class Imported {
  readonly stations = new Map<string, ImportedStation>();
  /**
   * Values by scale: station → time → data type → value in the contract's unit. Daily times are days
   * (`yyyy-mm-dd`); hourly times are UTC instants on the hour (`yyyy-mm-ddThh:00:00Z`), which the
   * build converts into the dataset's zone.
   */
  readonly rows: Record<ImportScale, Map<string, Map<string, Record<string, number>>>> = {
    hourly: new Map(),
    daily: new Map(),
  };
  /** Station → data type → counts. */
  readonly counts = new Map<string, Map<string, TypeCounts>>();
  /** Source fields with no contract data type, and how many values each held (not imported). */
  readonly unmapped = new Map<string, number>();
  /** Files read, with their rows. */
  /** Each file read, its rows, and what the report must say of it (a source it does not state). */
  readonly files: Array<{ path: string; rows: number; note?: string }> = [];

  /** The counts of `type` at `station`, created empty. */
  countsOf(station: string, type: string): TypeCounts {
    let byType = this.counts.get(station);
    if (!byType) this.counts.set(station, (byType = new Map()));
    let c = byType.get(type);
    if (!c) byType.set(type, (c = { read: 0, kept: 0, dropped: {}, trace: 0, derived: 0 }));
    return c;
  }

  /** Records a daily value read and kept. */
  keep(station: string, day: string, type: string, value: number): TypeCounts {
    return this.keepAt('daily', station, day, type, value);
  }

  /** Records a value of `scale` read and kept at `time`. */
  keepAt(scale: ImportScale, station: string, time: string, type: string, value: number): TypeCounts {
    const c = this.countsOf(station, type);
    c.read++;
    let times = this.rows[scale].get(station);
    if (!times) this.rows[scale].set(station, (times = new Map()));
    let row = times.get(time);
    if (!row) times.set(time, (row = {}));
    const before = row[type];
    if (before !== undefined) {
      // A value given twice (a line repeated, or two files of one period) is kept once; two
      // different values for one period cannot both be right, and neither is chosen.
      if (before !== value)
        throw new BuildError(
          'invalid_input',
          `station ${station} has two ${type} values for ${time}: ${before} and ${value}. Import one file per period of each station.`,
        );
      c.dropped['repeated (same value)'] = (c.dropped['repeated (same value)'] ?? 0) + 1;
      return c;
    }
    c.kept++;
    row[type] = value;
    return c;
  }

  /** Stores a value already counted (a value several readings made, for one hour). */
  put(scale: ImportScale, station: string, time: string, type: string, value: number): void {
    let times = this.rows[scale].get(station);
    if (!times) this.rows[scale].set(station, (times = new Map()));
    let row = times.get(time);
    if (!row) times.set(time, (row = {}));
    row[type] = value;
  }

  /** Takes `part`'s stations, counts, unmapped fields and files (not its rows, which were written). */
  absorb(part: Imported): void {
    for (const [id, s] of part.stations) this.stations.set(id, s);
    for (const [id, byType] of part.counts) {
      for (const [type, c] of byType) {
        const t = this.countsOf(id, type);
        t.read += c.read;
        t.kept += c.kept;
        t.trace += c.trace;
        t.derived += c.derived;
        for (const [why, n] of Object.entries(c.dropped)) t.dropped[why] = (t.dropped[why] ?? 0) + n;
      }
    }
    for (const [field, n] of part.unmapped) this.unmapped.set(field, (this.unmapped.get(field) ?? 0) + n);
    this.files.push(...part.files);
  }

  /** Whether any value was kept for `station`, at any scale. */
  holds(station: string): boolean {
    return this.rows.hourly.has(station) || this.rows.daily.has(station);
  }

  /** Records a value read and dropped for `reason`. */
  drop(station: string, type: string, reason: string): void {
    const c = this.countsOf(station, type);
    c.read++;
    c.dropped[reason] = (c.dropped[reason] ?? 0) + 1;
  }

  /** Records a value of a source field that no contract type takes. */
  skip(field: string): void {
    this.unmapped.set(field, (this.unmapped.get(field) ?? 0) + 1);
  }
}
