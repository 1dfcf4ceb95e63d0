/**
 * The words a person reads for the contract's names: station data types
 * and raster layers by a plain name with their unit, short definitions of
 * the agronomic indices, and errors in words made from their code, the
 * JSON pointer to the value at fault and their params ("field G2" for
 * `/wkts/1`), never from the message's text. One table, so the form, the chart, the table headers and the
 * tests all read the same words. No DOM here.
 *
 * Layer descriptions and units come from the dataset's catalog (a user's
 * dataset has its own); this module adds only what a catalog has no field
 * for: names of the contract's sub-types and the definitions of chill,
 * growing degree days and frost days as the demo build computes them.
 */
import { CHILL_SEASON, GDD_BASE, GDD_SEASON } from '../contract/agro-seasons.ts';
import type { ErrorParams } from '../contract/errors.ts';
import { RASTER_FAMILIES } from '../contract/raster-layers.ts';
import { km2Text } from '../contract/validate.ts';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import { stationTypeInfo } from '../contract/station-type-info.ts';

/** A plain name and the unit of its values. */
export interface Words {
  name: string;
  unit: string;
}

/** A station data type at a time scale as a person reads it (the contract's table, src/contract/station-type-info.ts). */
export function stationWords(scale: StationTimeScale | string, type: string): Words {
  const { name, unit } = stationTypeInfo(scale, type);
  return { name, unit };
}

/** "Name (unit)", or the name alone when there is no unit. */
export function withUnit(w: Words): string {
  return w.unit ? `${w.name} (${w.unit})` : w.name;
}

/** Month names in full, January first: the one list the app's words, tables and indices read. */
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const day = (m: number, d: number) => `${d} ${MONTH_NAMES[m - 1]}`;
const chillSeason = `${day(CHILL_SEASON.startMonth, CHILL_SEASON.startDay)} to ${day(CHILL_SEASON.endMonth, CHILL_SEASON.endDay)}`;
const interimSeason = `${day(CHILL_SEASON.startMonth, CHILL_SEASON.startDay)} to ${day(CHILL_SEASON.interimEndMonth, CHILL_SEASON.interimEndDay)}`;
const gddSeason = `${day(GDD_SEASON.startMonth, GDD_SEASON.startDay)} of the year before to ${day(GDD_SEASON.endMonth, GDD_SEASON.endDay)} of the season's year`;
// The Utah model's hourly scores (Richardson, Seeley & Walker 1974), as utahUnits() has them (indices/hourly-models.ts).
const UTAH_SCORES =
  '1 unit an hour at 2.5–9.1 °C, ½ just either side (1.5–2.4 and 9.2–12.4 °C), 0 at 12.5–15.9 °C, −½ at 16–18 °C and −1 above 18 °C';
const HOURS = "Hourly temperatures are estimated from each day's minimum and maximum.";

/** Plain names of the contract's raster sub-types (the catalog names the layer; its sub-types are bare codes). */
const SUB_WORDS: Record<string, Record<string, string>> = {
  chill: {
    dpcu: 'Daily Positive Chill Units (DPCU)',
    dpcui: 'DPCU, interim (to 30 June)',
    ucu: 'Utah chill units (UCU)',
    ucui: 'UCU, interim (to 30 June)',
  },
  gdd: Object.fromEntries(
    Object.entries(GDD_BASE).map(([k, b]) => [k, `${k[0]!.toUpperCase()}${k.slice(1)} (base ${b} °C)`]),
  ),
  temp: { min: 'Daily minimum', mean: 'Daily mean', max: 'Daily maximum' },
  rain: { monthly_median: 'Median for each calendar month' },
  windspeed: { 20: '20 m above ground', 50: '50 m above ground', 100: '100 m above ground', 150: '150 m above ground' },
};

/** A layer's sub-type as a person reads it: "Daily Positive Chill Units, DPCU …"; "—" for a layer without one; else the code itself. */
export function subTypeName(dataType: string, subDataType: string): string {
  if (subDataType === '-') return '— (one variant)';
  return SUB_WORDS[dataType]?.[subDataType] ?? subDataType;
}

/** What the catalog says of a layer that the words need. */
export interface LayerText {
  dataType: string;
  subDataType: string;
  description: string;
  unit: string;
}

/**
 * A layer's name for the layer list: the catalog's description and unit, e.g. "Winter chill per season (chill
 * units)"; a description that already ends with its unit (a build's default, "et0 (mm)") is not given it twice.
 */
export function layerName(layer: Pick<LayerText, 'description' | 'unit'>): string {
  return layer.unit && layer.description.endsWith(`(${layer.unit})`)
    ? layer.description
    : withUnit({ name: layer.description, unit: layer.unit });
}

/**
 * A short definition of a contract index layer, as the demo build computes
 * it (src/contract/agro-seasons.ts; docs/layers.md); null for a layer
 * that needs none (temperature, rainfall, wind) or that this app does not
 * know. With `description`, only a layer that describes itself as the
 * contract's family does (a user's own "gdd" layer with its own words may
 * use another base or season, and must not be told it uses ours).
 */
export function layerDefinition(dataType: string, subDataType: string, description?: string): string | null {
  const family = (RASTER_FAMILIES as Record<string, { title: string } | undefined>)[dataType];
  if (description !== undefined && family?.title !== description) return null;
  if (dataType === 'chill' && ['dpcu', 'dpcui', 'ucu', 'ucui'].includes(subDataType)) {
    const season = subDataType.endsWith('i') ? interimSeason : chillSeason;
    if (subDataType.startsWith('dpcu')) {
      return `Daily Positive Chill Units (Linsley-Noakes et al. 1995, a South African variant of the Utah model): each day's 24 hourly Utah units are added up, a day that comes out negative counts as 0, and the days from ${season} are summed. Utah units score each hour by its temperature: 1 at 2.5–9.1 °C, less either side, negative above 16 °C. ${HOURS}`;
    }
    return `Utah chill units (Richardson et al. 1974): every hour scores by its temperature — ${UTAH_SCORES} — and all hours from ${season} are summed, so warm spells take chill away. ${HOURS}`;
  }
  if (dataType === 'gdd') {
    const base = (GDD_BASE as Record<string, number>)[subDataType];
    if (base === undefined) return null;
    return `Growing degree days: each day adds its mean temperature, (minimum + maximum) ÷ 2, minus the base of ${base} °C, or nothing when the mean is below the base; summed from ${gddSeason}.`;
  }
  if (dataType === 'frost') return 'Frost days: how many days of the month had a minimum temperature below 0 °C.';
  return null;
}

/** An engine error as the app receives it: its code, pointer and params (the message is the contract's). */
export interface ErrorLike {
  code?: string;
  message: string;
  field?: string;
  params?: ErrorParams;
}

type Kind = 'point' | 'polygon' | null;

/** The data of an error, for the store (no stack, no cause; keys only when present). */
export function errorOf(e: ErrorLike): ErrorLike {
  return {
    message: e.message,
    ...(e.code === undefined ? {} : { code: e.code }),
    ...(e.field === undefined ? {} : { field: e.field }),
    ...(e.params === undefined ? {} : { params: e.params }),
  };
}

/** How the app names the request value a JSON pointer points at: shapes are G1, G2… beside the map. */
export function fieldWords(pointer: string | undefined, kind: Kind): string | null {
  if (pointer === undefined) return null;
  const [, top, index, ...rest] = pointer.split('/');
  if (top === 'wkts' && index !== undefined && rest.length === 0 && String(Number(index)) === index)
    return `${kind === 'polygon' ? 'field' : kind === 'point' ? 'point' : 'shape'} G${Number(index) + 1}`;
  return FIELD_WORDS[pointer] ?? null;
}

const FIELD_WORDS: Record<string, string> = {
  '/wkts': 'the drawn shapes',
  '/startDate': 'the From date',
  '/endDate': 'the To date',
  '/dataTypes': 'the chosen data types',
  '/dataType': 'the layer',
  '/options/subDataType': 'the layer',
  '/options/timeScale': 'the time scale',
};

/** "Field G2, outer ring has 3 positions; …": an item's subject from its index, then the contract's reason. */
export function itemWords(subject: string, params: ErrorParams): string {
  const part = typeof params.part === 'string' ? `, ${params.part}` : '';
  return `${subject}${part} ${String(params.reason)}`;
}

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-ZA') : String(v));
const scaleWords = (v: unknown) => String(v).replace('_', ' ');

/**
 * The app's sentence for a contract error, made from its code, the field
 * it points at and its params; null when the error carries none of those
 * this app reads (then the message is shown as written).
 */
function contractWords(error: ErrorLike, kind: Kind): string | null {
  const p = error.params;
  if (!p) return null;
  const subject = fieldWords(error.field, kind);
  switch (error.code) {
    case 'invalid_wkt':
      if (p.reason === 'swapped')
        return `${subject ?? 'A place'} lies outside the data, and inside it with its two numbers swapped (${String(p.swapped)}): coordinates go longitude first, then latitude.`;
      return subject && typeof p.index === 'number' && p.reason !== undefined ? itemWords(subject, p) : null;
    case 'polygon_too_large':
      return `${subject ?? 'A field'} has an area of ${km2Text(Number(p.areaKm2))} km²; each ${kind === 'polygon' ? 'field' : 'polygon'} may be at most ${n(p.maxKm2)} km². Draw it smaller or split it.`;
    case 'limit_exceeded': {
      if (p.of === 'vertices')
        return `The drawn shapes have more than ${n(p.max)} corners in all; simplify them or draw fewer.`;
      if (p.of === 'pixels')
        return `The field covers ${n(p.got)} pixels of this layer, more than the ${n(p.max)} one field may; draw a smaller field.`;
      const range = p.min === p.max ? `exactly ${n(p.max)}` : `${n(p.min)} to ${n(p.max)}`;
      const what = p.of === 'dataTypes' ? 'data types' : String(p.of);
      const holder = p.of === 'dataTypes' ? 'The query asks for' : 'The drawn shapes hold';
      const count = p.got === undefined ? `more than ${n(p.max)}` : n(p.got);
      return `${holder} ${count} ${what}; this query takes ${range}.`;
    }
    case 'invalid_date':
      if (p.got === undefined) return null;
      return `${capital(subject ?? 'the date')} "${String(p.got)}" ${String(p.reason)} (${scaleWords(p.timeScale)} dates are written ${String(p.format)}, e.g. "${String(p.example)}").`;
    case 'invalid_date_range':
      if (p.reason === 'start after end')
        return `The From date "${String(p.startDate)}" is after the To date "${String(p.endDate)}".`;
      if (p.reason === 'not in layer') {
        const what =
          p.missingCount === 1
            ? `${String(p.missingFirst)} is`
            : `${n(p.missingCount)} of the dates (${String(p.missingFirst)} to ${String(p.missingLast)}) are`;
        return `${what} not in this layer; it holds ${String(p.first)} to ${String(p.last)}${p.gaps === true ? ', with gaps' : ''}. Choose dates in that range.`;
      }
      return p.reason === 'layer has no dates' ? 'This layer holds no dates.' : null;
    case 'too_many_periods':
      return `The dates span ${n(p.got)} ${scaleWords(p.timeScale)} periods; one query may ask for at most ${n(p.max)}. Choose a shorter range.`;
    default:
      return null;
  }
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A contract error in the app's words, or its message as written when it carries nothing the app reads. */
export function plainError(error: ErrorLike, kind: Kind): string {
  return capital(contractWords(error, kind) ?? error.message);
}

/** What the Run button will ask, in plain words (the endpoint itself is in the developer panel). */
export function askText(endpoint: string | null, count: number): string {
  const n = count > 1 ? `G1–G${count}` : 'G1';
  switch (endpoint) {
    case 'nearest-station':
      return `Records of the nearest weather station to ${count > 1 ? 'each point' : 'the point'} (${n}).`;
    case 'poly-aggregate':
      return `The average of the weather stations inside the field (${n}).`;
    case 'point':
      return `The layer's value at ${count > 1 ? 'each point' : 'the point'} (${n}).`;
    case 'polygon':
      return `The layer's value over ${count > 1 ? 'each field' : 'the field'} (${n}), its pixels combined as chosen.`;
    default:
      return 'Draw a point (nearest station, or a layer value) or a field (station average, or a layer statistic).';
  }
}

const OFFLINE = 'The climate data could not be reached: this device is offline. Connect and try again.';

/** Codes whose engine message speaks of files, URLs and HTTP: the grower reads a cause and a remedy instead. */
const FAULT_WORDS: Record<string, (online: boolean, params: ErrorParams | undefined) => string> = {
  dataset_unavailable: (online, params) =>
    !online
      ? OFFLINE
      : params?.reason === 'unreachable'
        ? 'The climate data could not be reached: the data server did not answer. Check the connection and try again in a moment.'
        : 'The climate data could not be read: the published dataset is incomplete or damaged. Tell whoever publishes it (the detail is under "For developers").',
  query_too_costly: (_online, params) =>
    `This layer is stored in a way that makes the question too large to answer here${typeof params?.estimateBytes === 'number' ? ` (it would read ${Math.round(params.estimateBytes / 2 ** 20).toLocaleString('en')} MB)` : ''}. Ask for fewer days or a smaller field; whoever publishes the layer can make it answer quickly (the detail is under "For developers").`,
  upstream_timeout: (online) =>
    online
      ? 'The data server was too slow to answer. Try again in a moment, or ask for fewer days or shapes.'
      : OFFLINE,
  dataset_changed: () =>
    'The dataset was updated on the server while it was being read. Run again to read the new version.',
  engine_unavailable: () => 'The app could not start its query engine. Reload the page.',
  internal: () =>
    'Something went wrong inside the app. Reload and try again; the detail under "For developers" helps to fix it.',
};

/**
 * What a person reads for an engine error: the contract's words made plain
 * ({@link plainError}), or, for a fault of the connection or the dataset, a
 * cause and what to do; the raw message stays in the developer panel.
 */
export function errorWords(
  error: ErrorLike,
  kind: Kind = null,
  online = typeof navigator === 'undefined' || navigator.onLine !== false,
): string {
  const fault = error.code ? FAULT_WORDS[error.code] : undefined;
  return fault ? fault(online, error.params) : plainError(error, kind);
}

/** The sentence for a follow-up request that failed ("Could not compute chill and heat: …"). */
export function followUpError(
  what: string,
  error: ErrorLike & { code: string },
  offlineHint = 'Connect and try again.',
): string {
  const online = navigator.onLine !== false;
  if (!online && (error.code === 'dataset_unavailable' || error.code === 'upstream_timeout'))
    return `Could not ${what}: this device is offline. ${offlineHint}`;
  const words = errorWords(error, null, online);
  return `Could not ${what}: ${words.charAt(0).toLowerCase()}${words.slice(1)}`;
}

/** Why a season's index is blank, from its hours: none with a temperature, or too few of the share a value needs. */
export function blankWords(hours: { used: number; expected: number }, needed: number): string {
  if (hours.used === 0) return 'the station has no temperature in this season.';
  const pct = Math.floor((1000 * hours.used) / hours.expected) / 10;
  return `only ${hours.used.toLocaleString('en-ZA')} of ${hours.expected.toLocaleString('en-ZA')} hours (${pct} %) have a temperature; a value needs ${Math.round(needed * 100)} %.`;
}
