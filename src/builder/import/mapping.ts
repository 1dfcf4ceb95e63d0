/**
 * A mapping file: how one export's columns become the contract's data types (`import csv --mapping
 * FILE`). Loggers and networks each write their own headers, units, missing markers, date formats,
 * decimal commas and clocks; the mapping says each of them once, in a file a person reads and edits.
 * Nothing in it is guessed: `import csv` without one proposes a mapping from the headers it
 * recognises, writes it beside the export and builds nothing (mapping-proposal.ts).
 */
import { STATION_TYPES } from '../../contract/station-data-types.ts';
import { parseDocument, visit } from 'yaml';
import { BuildError } from '../build-error.ts';

/** Units an export may state, by kind, with the conversion into the contract's unit (docs/data.md). */
export const UNITS: Readonly<Record<string, { into: string; convert: (v: number) => number }>> = {
  '°C': { into: '°C', convert: (v) => v },
  C: { into: '°C', convert: (v) => v },
  '°F': { into: '°C', convert: (v) => ((v - 32) * 5) / 9 },
  F: { into: '°C', convert: (v) => ((v - 32) * 5) / 9 },
  K: { into: '°C', convert: (v) => v - 273.15 },
  mm: { into: 'mm', convert: (v) => v },
  cm: { into: 'mm', convert: (v) => v * 10 },
  in: { into: 'mm', convert: (v) => v * 25.4 },
  'm/s': { into: 'm/s', convert: (v) => v },
  'km/h': { into: 'm/s', convert: (v) => v / 3.6 },
  kn: { into: 'm/s', convert: (v) => v * 0.514444 },
  mph: { into: 'm/s', convert: (v) => v * 0.44704 },
  '%': { into: '%', convert: (v) => v },
  '°': { into: '°', convert: (v) => v },
  'W/m²': { into: 'W/m²', convert: (v) => v },
  'MJ/m²': { into: 'MJ/m²', convert: (v) => v },
  min: { into: 'min', convert: (v) => v },
  h: { into: 'h', convert: (v) => v },
};

/**
 * A YAML mapping's values. A station id written plain with a leading zero (`id: 007`, a key
 * `0012:`) is YAML's number 7 or 12; station ids are text, so such a scalar keeps its text.
 */
function yamlOf(text: string): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw doc.errors[0];
  visit(doc, {
    Scalar(_key, node) {
      if (node.type === 'PLAIN' && typeof node.source === 'string' && /^[+-]?0\d+$/.test(node.source))
        node.value = node.source;
    },
  });
  // Aliases bounded: a mapping has no use for a billion laughs.
  return doc.toJS({ maxAliasCount: 16 });
}

/** The unit each data type is stored in (docs/data.md, "Units"), by the type's name. */
export function unitOfType(type: string): string {
  if (/^(temperature|dew_point)/.test(type)) return '°C';
  if (/^(rain|evaporation|et0)/.test(type)) return 'mm';
  if (/^wind_speed/.test(type)) return 'm/s';
  if (/^humidity/.test(type)) return '%';
  if (/^wind_direction/.test(type)) return '°';
  if (/^solar_radation$/.test(type) || /^solar_rad_std/.test(type)) return 'W/m²';
  if (/^solar_radiation_sum$/.test(type)) return 'MJ/m²';
  if (/^sunshine_duration_sum$/.test(type)) return 'h';
  if (/^(sunshine_duration|leaf_wet)/.test(type)) return 'min';
  return '';
}

export interface ColumnMapping {
  /** The contract's data type at the mapping's scale. */
  type: string;
  /** The export's unit (a key of {@link UNITS}); default the type's own. */
  unit?: string;
}

export interface Mapping {
  /** The scale of the rows: `hourly` (readings at any minute are put into the hour they end in) or `daily`. */
  scale: 'hourly' | 'daily';
  /** Field separator (default `,`). */
  separator?: string;
  /** An Excel workbook's sheet to read, by name or number from 1 (default the first). */
  sheet?: string | number;
  /** Decimal mark (default `.`; `,` for exports that write 12,5). */
  decimal?: string;
  /** Texts that mean no value (default `""`, `-`, `NaN`, `NA`, `-999`, `-9999`). */
  missing?: string[];
  /** The time column and its format (`yyyy-mm-dd hh:mm`, `dd/mm/yyyy hh:mm`, `yyyy/mm/dd hh:mm:ss`, …; tokens yyyy mm dd hh mm ss). */
  time: { column: string; format: string; date?: undefined } | { column: string; format: string };
  /** The clock the times are in: `UTC`, or an offset (`+02:00`); hourly times are converted into the dataset's. */
  zone: string;
  /** One station for every row, or the column naming it and where each station is. */
  station:
    | { id: string; name?: string; lat: number; lon: number; elevation?: number | null }
    | {
        column: string;
        stations: Record<string, { name?: string; lat: number; lon: number; elevation?: number | null }>;
      };
  /** Export column → data type (and unit). Columns not named are not imported (and are named in the report). */
  columns: Record<string, ColumnMapping>;
}

const DEFAULT_MISSING = ['', '-', 'NaN', 'nan', 'NA', 'N/A', '-999', '-9999'];

/** `text` (a mapping file's) checked field by field; a BuildError names the first wrong one. */
export function parseMapping(
  text: string,
  file: string,
): Required<Pick<Mapping, 'separator' | 'decimal' | 'missing'>> & Mapping {
  const bad = (field: string, why: string) =>
    new BuildError('invalid_option', `${file}: ${field} ${why}`, { option: 'mapping', file });
  let m: Mapping;
  // JSON, or YAML for a person who writes it by hand (a .yaml or .yml file): the same fields.
  const yaml = /\.ya?ml$/i.test(file);
  try {
    m = (yaml ? yamlOf(text) : JSON.parse(text)) as Mapping;
  } catch (err) {
    throw new BuildError('invalid_option', `${file} is not ${yaml ? 'YAML' : 'JSON'}: ${(err as Error).message}`, {
      option: 'mapping',
      file,
    });
  }
  if (!m || typeof m !== 'object' || Array.isArray(m))
    throw bad('the mapping', `must be a ${yaml ? 'YAML mapping' : 'JSON object'}.`);
  if (m.scale !== 'hourly' && m.scale !== 'daily') throw bad('"scale"', 'must be "hourly" or "daily".');
  if (!m.time || typeof m.time.column !== 'string' || typeof m.time.format !== 'string')
    throw bad('"time"', 'must name the time column and its format: {"column": "Date", "format": "dd/mm/yyyy hh:mm"}.');
  if (!/yyyy/.test(m.time.format) || !/dd/.test(m.time.format) || !/mm/.test(m.time.format))
    throw bad(
      '"time.format"',
      `${JSON.stringify(m.time.format)} must hold yyyy, mm and dd (and hh, mm for hourly rows).`,
    );
  if (m.scale === 'hourly' && !/hh/.test(m.time.format))
    throw bad('"time.format"', `${JSON.stringify(m.time.format)} has no hour (hh): hourly rows need one.`);
  if (typeof m.zone !== 'string' || !/^(UTC|Z|[+-]\d{2}:\d{2})$/.test(m.zone))
    throw bad('"zone"', 'must say the clock the times are in: "UTC" or an offset such as "+02:00" (never guessed).');
  if (!m.station || typeof m.station !== 'object')
    throw bad('"station"', 'must give the station (id, name, lat, lon) or its column.');
  const place = (at: string, s: { lat?: unknown; lon?: unknown; elevation?: unknown }) => {
    if (typeof s.lat !== 'number' || typeof s.lon !== 'number' || Math.abs(s.lat) > 90 || Math.abs(s.lon) > 180)
      throw bad(`"${at}"`, 'must say where the station is: "lat" and "lon" in degrees (never guessed).');
    if (s.elevation !== undefined && s.elevation !== null && typeof s.elevation !== 'number')
      throw bad(`"${at}.elevation"`, 'must be metres, or null when unknown.');
  };
  if ('column' in m.station) {
    if (typeof m.station.column !== 'string' || !m.station.stations || typeof m.station.stations !== 'object')
      throw bad('"station"', 'with a "column" must list "stations": {"<id>": {"name", "lat", "lon"}}.');
    for (const [id, s] of Object.entries(m.station.stations)) place(`station.stations.${id}`, s);
  } else {
    if (typeof m.station.id !== 'string' || m.station.id.trim() === '' || m.station.id === 'CHECK')
      throw bad('"station.id"', 'must name the station (text).');
    place('station', m.station);
  }
  if (
    m.sheet !== undefined &&
    !(typeof m.sheet === 'string' || (typeof m.sheet === 'number' && Number.isInteger(m.sheet) && m.sheet >= 1))
  )
    throw bad('"sheet"', "must name the workbook's sheet, or give its number from 1.");
  if (m.separator !== undefined && !(typeof m.separator === 'string' && /^(,|;|\t|\||\s)$/.test(m.separator)))
    throw bad('"separator"', 'must be one character: "," ";" "\\t" "|" or " ".');
  if (m.decimal !== undefined && m.decimal !== '.' && m.decimal !== ',') throw bad('"decimal"', 'must be "." or ",".');
  if (m.missing !== undefined && !(Array.isArray(m.missing) && m.missing.every((x) => typeof x === 'string')))
    throw bad('"missing"', 'must list the texts that mean no value: ["", "-", "-999"].');
  if (!m.columns || typeof m.columns !== 'object' || Object.keys(m.columns).length === 0)
    throw bad('"columns"', 'must map at least one column to a data type.');
  for (const [column, c] of Object.entries(m.columns)) {
    if (!c || !STATION_TYPES[m.scale].includes(c.type))
      throw bad(
        `"columns.${column}.type"`,
        `${JSON.stringify(c?.type)} is not a ${m.scale} data type (docs/data.md, table 2.4).`,
      );
    const unit = c.unit ?? unitOfType(c.type);
    const u = UNITS[unit];
    if (!u)
      throw bad(
        `"columns.${column}.unit"`,
        `${JSON.stringify(unit)} is not a unit this version converts (${Object.keys(UNITS).join(', ')}).`,
      );
    if (u.into !== unitOfType(c.type))
      throw bad(`"columns.${column}.unit"`, `${unit} cannot become ${c.type}'s unit, ${unitOfType(c.type) || 'none'}.`);
  }
  return {
    ...m,
    separator: m.separator ?? ',',
    decimal: m.decimal ?? '.',
    missing: m.missing ?? DEFAULT_MISSING,
  };
}

/** A parser of `format`'s times into [yyyy, mm, dd, hh, mi, ss], or null when a text does not match. */
export function timeParser(format: string): (text: string) => [number, number, number, number, number, number] | null {
  const order: string[] = [];
  let minuteSeen = false;
  const pattern = format.replace(/yyyy|mm|dd|hh|ss|[.*+?^${}()|[\]\\]/g, (tok) => {
    if (tok === 'yyyy') {
      order.push('y');
      return '(\\d{4})';
    }
    if (tok === 'mm') {
      // The first mm after an hh is minutes; before it, the month.
      const isMinute = order.includes('h') && !minuteSeen;
      if (isMinute) minuteSeen = true;
      order.push(isMinute ? 'i' : 'm');
      return '(\\d{1,2})';
    }
    if (tok === 'dd' || tok === 'hh' || tok === 'ss') {
      order.push(tok[0]!);
      return '(\\d{1,2})';
    }
    return `\\${tok}`;
  });
  const re = new RegExp(`^\\s*${pattern}\\s*$`);
  return (text) => {
    const m = re.exec(text);
    if (!m) return null;
    const v: Record<string, number> = { y: 0, m: 1, d: 1, h: 0, i: 0, s: 0 };
    order.forEach((k, i) => {
      v[k] = Number(m[i + 1]);
    });
    return [v.y!, v.m!, v.d!, v.h!, v.i!, v.s!];
  };
}
