/**
 * What a raster build declares about its layer: names, unit, time scale,
 * description and extent, from what the user passed, with the contract
 * families (src/contract/raster-layers.ts) as defaults when the layer is
 * built under one of their names. Refuses what is missing or ambiguous
 * with the option to pass, and checks a declared extent against the grid.
 */
import { BuildError } from './build-error.ts';
import {
  EXTENT_BBOX,
  NO_SUB_TYPE,
  RASTER_FAMILIES,
  RASTER_TIME_SCALES,
  contractLayer,
  type Bbox,
  type RasterDataType,
  type RasterLayerDeclaration,
  type RasterTimeScale,
} from '../contract/raster-layers.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import type { GridSpec } from '../rasters/coverage.ts';

/** Default storage step of the contract families: value = stored × scale. Int16 holds ±32767 steps. */
export const DEFAULT_SCALE: Record<RasterDataType, number> = {
  temp: 0.1,
  gdd: 1,
  chill: 1,
  frost: 1,
  rain: 0.1,
  windspeed: 0.01,
};

/** What the user said about the layer (CLI flags or the programmatic options). */
export interface LayerStatement {
  dataType: string;
  subDataType?: string;
  unit?: string;
  /** null: undated. */
  timeScale?: RasterTimeScale | null;
  description?: string;
  extent?: string;
}

/** A layer declaration before its extent bbox is known (that needs the grid). */
export type PendingDeclaration = Omit<RasterLayerDeclaration, 'extentBbox' | 'extent'> & { extent: string | undefined };

const NAME = /^[A-Za-z][A-Za-z0-9_.]*$/;
const SUB_NAME = /^[A-Za-z0-9][A-Za-z0-9_.]*$/;

/** The raster scales as a person chooses among them: "daily, monthly, annual, calendar_month (long-term monthly values)". */
function scaleChoices(): string {
  // A scale whose words are not just "<name> values" says what it is.
  return RASTER_TIME_SCALES.map((s) =>
    TIME_SCALES[s].words === `${s} values` ? s : `${s} (${TIME_SCALES[s].words})`,
  ).join(', ');
}

/** Parses a `--time-scale` value: one of the raster time scales, or "none" for undated. */
export function parseTimeScale(text: string): RasterTimeScale | null {
  if (text === 'none') return null;
  if ((RASTER_TIME_SCALES as readonly string[]).includes(text)) return text as RasterTimeScale;
  throw new BuildError(
    'invalid_option',
    `--time-scale must be one of ${[...RASTER_TIME_SCALES, 'none'].join(', ')} ("none" for an undated layer such as elevation); got "${text}".`,
    {
      option: 'timeScale',
    },
  );
}

/**
 * The declaration of the layer being built. Contract family names take the
 * family's unit, time scale, extent and description unless given; any
 * other name must state unit and time scale.
 */
export function declareLayer(s: LayerStatement): PendingDeclaration {
  if (!NAME.test(s.dataType)) {
    throw new BuildError(
      'invalid_option',
      `Layer name "${s.dataType}" must start with a letter and hold only letters, digits, "_" and "."; e.g. --layer elevation or --layer et0/fao56.`,
      { option: 'dataType' },
    );
  }
  const family = (RASTER_FAMILIES as Record<string, (typeof RASTER_FAMILIES)[RasterDataType] | undefined>)[s.dataType];
  const subDataType = s.subDataType ?? family?.defaultSubType ?? NO_SUB_TYPE;
  if (family && !family.subTypes.includes(subDataType)) {
    throw new BuildError(
      'invalid_option',
      `${s.dataType} is a contract family with sub-types ${family.subTypes.map((x) => `"${x}"`).join(', ')}; got ${JSON.stringify(subDataType)}. Use another layer name for other data.`,
      {
        option: 'subDataType',
      },
    );
  }
  if (subDataType !== NO_SUB_TYPE && !SUB_NAME.test(subDataType)) {
    throw new BuildError(
      'invalid_option',
      `Sub-type "${subDataType}" must hold only letters, digits, "_" and "."; e.g. --layer et0/fao56.`,
      { option: 'subDataType' },
    );
  }
  const known = contractLayer(s.dataType, subDataType);
  const unit = s.unit ?? known?.unit;
  if (unit === undefined || unit.trim() === '') {
    throw new BuildError(
      'invalid_option',
      `Say the unit of ${s.dataType} values: pass --unit, e.g. --unit m, --unit mm, --unit "°C".`,
      { option: 'unit' },
    );
  }
  const timeScale = s.timeScale !== undefined ? s.timeScale : known ? known.timeScale : undefined;
  if (timeScale === undefined) {
    throw new BuildError(
      'invalid_option',
      `Say what the bands of ${s.dataType} are: pass --time-scale ${scaleChoices()}, or none (one undated grid, e.g. elevation).`,
      { option: 'timeScale' },
    );
  }
  return {
    dataType: s.dataType,
    subDataType,
    ...(known?.isDefault || subDataType === NO_SUB_TYPE ? { isDefault: true } : {}),
    extent: s.extent ?? known?.extent,
    timeScale,
    unit,
    description:
      s.description ??
      known?.description ??
      `${s.dataType}${subDataType === NO_SUB_TYPE ? '' : ` ${subDataType}`} (${unit})`,
  };
}

/** [west, south, east, north] of a grid. */
export function gridBbox(g: GridSpec): Bbox {
  return [g.west, g.north - g.height * g.resY, g.west + g.width * g.resX, g.north];
}

/** The extents a build knows by name: the contract's (tc, sa) and those the dataset's layers already declare. */
export function knownExtents(existing: readonly RasterLayerEntry[]): Map<string, Bbox> {
  const out = new Map<string, Bbox>(Object.entries(EXTENT_BBOX) as Array<[string, Bbox]>);
  for (const l of existing) if (Array.isArray(l.extentBbox) && !out.has(l.extent)) out.set(l.extent, l.extentBbox);
  return out;
}

const fmt = (b: Bbox) => `[${b.map((x) => Number(x.toFixed(6))).join(', ')}]`;

/**
 * Settles the layer's extent against its grid. A known extent (tc, sa, or
 * one the dataset already has) must contain the grid, give or take one
 * pixel of snapping; a new name takes the grid's own bounds; no name picks
 * the one known extent that contains the grid, and refuses when none or
 * several do.
 */
export function settleExtent(
  name: string | undefined,
  grid: GridSpec,
  known: Map<string, Bbox>,
  label: string,
): { extent: string; extentBbox: Bbox } {
  const bbox = gridBbox(grid);
  const tol: [number, number] = [grid.resX * (1 + 1e-9), grid.resY * (1 + 1e-9)];
  const contains = (e: Bbox) =>
    bbox[0] >= e[0] - tol[0] && bbox[1] >= e[1] - tol[1] && bbox[2] <= e[2] + tol[0] && bbox[3] <= e[3] + tol[1];
  if (name === undefined) {
    const fits = [...known].filter(([, e]) => contains(e)).map(([n]) => n);
    if (fits.length === 1) return { extent: fits[0]!, extentBbox: known.get(fits[0]!)! };
    const choices =
      fits.length > 1
        ? `it lies within ${fits.map((n) => `"${n}"`).join(' and ')}`
        : `no extent this dataset knows (${[...known.keys()].join(', ')}) contains it`;
    throw new BuildError(
      'invalid_option',
      `The ${label} grid covers ${fmt(bbox)} and ${choices}: pass --extent NAME (a known name is checked against the grid; a new name takes the grid's bounds).`,
      {
        option: 'extent',
      },
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    throw new BuildError('invalid_option', `Extent name "${name}" must hold only letters, digits, "_", "." and "-".`, {
      option: 'extent',
    });
  }
  const e = known.get(name);
  if (!e) return { extent: name, extentBbox: bbox };
  if (!contains(e)) {
    const overlaps = bbox[2] > e[0] && bbox[0] < e[2] && bbox[3] > e[1] && bbox[1] < e[3];
    throw new BuildError(
      'invalid_option',
      `The ${label} grid covers ${fmt(bbox)}, which ${overlaps ? 'reaches beyond' : 'lies outside'} extent "${name}" ${fmt(e)}. Crop the inputs to the extent (e.g. gdal_translate -projwin ${e[0]} ${e[3]} ${e[2]} ${e[1]}), or pass --extent with a new name to declare the grid's own bounds.`,
      { option: 'inputs' },
    );
  }
  return { extent: name, extentBbox: e };
}
