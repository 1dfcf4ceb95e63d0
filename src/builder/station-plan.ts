/**
 * The plan of a station build, made before any row is read: which files
 * are loaded at which scale, which scales are derived from which (finest
 * first, each from the next finer one given or derived), every scale the
 * built archive will hold, and the zone its times are filed in. Pure: the
 * inputs' names, the options and the dataset's catalog decide it, so the
 * rules are unit-tested without DuckDB (test/builder/station-plan.test.ts);
 * stations-build.ts executes it with DuckDB.
 */
import { STATION_TIME_SCALES, type StationTimeScale } from '../contract/station-data-types.ts';
import { stationScaleSpec } from '../contract/time-scales.ts';
import type { Catalog } from '../dataset/catalog.ts';
import { BuildError } from './build-error.ts';
import { buildTimeZone } from './time-zone.ts';

/**
 * Input files of a station build; `stations` and at least one scale are
 * required. A scale may come in several files (parts of one archive, one
 * file per logger, one per year …): every file is read, and a (station,
 * period) in two of them is refused, naming both.
 */
export type StationInputs = { stations: string } & Partial<Record<StationTimeScale, string | readonly string[]>>;

/** What the plan reads of the build's options. */
export interface StationPlanOptions {
  replace?: boolean;
  timeZone?: string;
}

/** What a station build will do, decided before any row is read. */
export interface StationBuildPlan {
  /** The observation files of each scale given, in the order given; scales with none are left out. */
  loads: Array<{ scale: StationTimeScale; files: string[] }>;
  /** The scales derived, finest first, each from the next finer one (given or derived before it). */
  derives: Array<{ to: StationTimeScale; from: StationTimeScale }>;
  /** Every scale the build writes rows of (given or derived), finest first. */
  scales: StationTimeScale[];
  /** The UTC offset the archive's times are filed in ("+02:00"). */
  zone: string;
  /** The dataset's station archive is replaced whole, not added to. */
  replace: boolean;
}

/** The files given for `scale`, as a list (none, one or several). */
export function filesOf(inputs: StationInputs, scale: StationTimeScale): string[] {
  const v = inputs[scale];
  return v === undefined ? [] : typeof v === 'string' ? [v] : [...v];
}

const orList = (xs: readonly string[]) =>
  xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}` : xs.join('');

/**
 * Plans a build of `inputs` into the dataset whose catalog is `catalog`.
 * Throws the build error a user can act on: no observation file, a file
 * given twice, a zone other than the dataset's without `replace`.
 */
export function planStationBuild(
  inputs: StationInputs,
  options: StationPlanOptions,
  catalog: Catalog,
): StationBuildPlan {
  const loads = STATION_TIME_SCALES.map((scale) => ({ scale, files: filesOf(inputs, scale) })).filter(
    (l) => l.files.length > 0,
  );
  if (loads.length === 0) {
    throw new BuildError(
      'invalid_input',
      `Give at least one observation file (${orList(STATION_TIME_SCALES)}) with the stations file.`,
    );
  }
  for (const { scale, files } of loads) {
    const twice = files.find((f, i) => files.indexOf(f) !== i);
    if (twice !== undefined)
      throw new BuildError('invalid_input', `${twice}: given twice as a ${scale} file; give each file once.`);
  }
  const replace = options.replace ?? false;
  // A dataset keeps one zone; one built before zones were recorded is in the contract's SAST.
  const zone = buildTimeZone(
    options.timeZone,
    catalog.stations ? (catalog.stations.utcOffset ?? '+02:00') : null,
    replace,
  );
  // Daily from hourly, dekads and months from daily (the scales' descriptions, contract/time-scales.ts):
  // in the description's order, finest first, so a scale derived from a derived one sees its rows.
  const scales = new Set(loads.map((l) => l.scale));
  const derives: StationBuildPlan['derives'] = [];
  for (const to of STATION_TIME_SCALES) {
    const from = stationScaleSpec(to).derivedFrom as StationTimeScale | null;
    if (from === null || !scales.has(from)) continue;
    derives.push({ to, from });
    scales.add(to);
  }
  return { loads, derives, scales: STATION_TIME_SCALES.filter((s) => scales.has(s)), zone, replace };
}
