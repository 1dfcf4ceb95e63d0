/**
 * `import csv FILE` without `--mapping`: a mapping proposed from the export's header, written beside
 * it for a person to check and pass back. What the header says (a column named like a date, a
 * temperature, a rain amount, and a unit in brackets) is proposed; what it cannot say — the clock
 * the times are in, where the station is — is left as `CHECK`, which parseMapping refuses, so an
 * import never builds from a guess.
 */
import { readInputText } from './input-bytes.ts';
import { writeFile } from 'node:fs/promises';
import { splitFields } from './csv-fields.ts';
import { isWorkbook, readExportTable } from './export-table.ts';
import { UNITS } from './mapping.ts';

/** Header words → the hourly and daily data type they name (first match wins). */
const GUESSES: Array<[RegExp, { hourly: string; daily: string }]> = [
  [/dew/i, { hourly: 'dew_point', daily: 'dew_point_mean' }],
  [/t(emp|mp)?.*max|max.*temp/i, { hourly: 'temperature_max', daily: 'temperature_max' }],
  [/t(emp|mp)?.*min|min.*temp/i, { hourly: 'temperature_min', daily: 'temperature_min' }],
  [/temp|air ?t\b|^t\b/i, { hourly: 'temperature_mean', daily: 'temperature_mean' }],
  [/rain|precip|prcp|neerslag/i, { hourly: 'rain', daily: 'rain_sum' }],
  [/\brh\b|humid/i, { hourly: 'humidity', daily: 'humidity_mean' }],
  [/gust|wind.*max/i, { hourly: 'wind_speed_max', daily: 'wind_speed_max' }],
  [/wind.*dir|\bdir\b/i, { hourly: 'wind_direction', daily: 'wind_direction_mean' }],
  [/wind|\bws\b/i, { hourly: 'wind_speed', daily: 'wind_speed_mean' }],
  [/solar|radiation|\bsr\b/i, { hourly: 'solar_radation', daily: 'solar_radiation_sum' }],
  [/leaf/i, { hourly: 'leaf_wetness', daily: 'leaf_wetness_mean' }],
];

/** The unit written in a header, `Temp (°C)`, `Rain [mm]`, `Wind km/h`, or undefined. */
function unitIn(header: string): string | undefined {
  const m = /[([]\s*([^)\]]+?)\s*[)\]]/.exec(header);
  const text = (m?.[1] ?? header)
    .replace('deg C', '°C')
    .replace('degC', '°C')
    .replace('deg F', '°F')
    .replace('knots', 'kn');
  return Object.keys(UNITS)
    .sort((a, b) => b.length - a.length)
    .find((u) => (m ? text === u : new RegExp(`(^|\\s)${u.replace(/[/.]/g, '\\$&')}$`).test(text)));
}

/** The time format a sample time has, in the mapping's tokens, or undefined. */
function formatOf(sample: string): string | undefined {
  const s = sample.trim();
  const forms: Array<[RegExp, string]> = [
    [/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$/, s.includes('T') ? 'yyyy-mm-ddThh:mm:ss' : 'yyyy-mm-dd hh:mm:ss'],
    [/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}$/, s.includes('T') ? 'yyyy-mm-ddThh:mm' : 'yyyy-mm-dd hh:mm'],
    [/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}$/, 'yyyy/mm/dd hh:mm'],
    [/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/, 'yyyy/mm/dd hh:mm:ss'],
    // Day first, as South African exports write it; a month-first export must say so (the proposal says to check).
    [/^\d{2}\/\d{2}\/\d{4} \d{1,2}:\d{2}$/, 'dd/mm/yyyy hh:mm'],
    [/^\d{2}\/\d{2}\/\d{4} \d{1,2}:\d{2}:\d{2}$/, 'dd/mm/yyyy hh:mm:ss'],
    [/^\d{2}\/\d{2}\/\d{4}$/, 'dd/mm/yyyy'],
    [/^\d{4}-\d{2}-\d{2}$/, 'yyyy-mm-dd'],
    [/^\d{4}\/\d{2}\/\d{2}$/, 'yyyy/mm/dd'],
  ];
  return forms.find(([re]) => re.test(s))?.[1];
}

/** A proposed mapping of `file` (as JSON text) and the lines to say about it. */
export async function proposeMapping(file: string): Promise<{ text: string; notes: string[] }> {
  if (isWorkbook(file) || /\.xls$/i.test(file)) return proposeForWorkbook(file);
  const lines = (await readInputText(file, 'utf8'))
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  const head = lines[0] ?? '';
  const separator = [';', '\t', ','].reduce(
    (best, sep) => (head.split(sep).length > head.split(best).length ? sep : best),
    ',',
  );
  const header = (splitFields(head, separator) ?? []).map((h) => h.trim());
  const sample = (splitFields(lines[1] ?? '', separator) ?? []).map((x) => x.trim());
  const notes: string[] = [];
  const timeAt = header.findIndex((h) => /date|time|timestamp|datum|tyd/i.test(h));
  const format = timeAt >= 0 ? formatOf(sample[timeAt] ?? '') : undefined;
  const scale = format && /hh/.test(format) ? 'hourly' : 'daily';
  const decimal = separator === ';' && sample.some((x) => /^-?\d+,\d+$/.test(x)) ? ',' : '.';
  return proposal({ header, sample, timeAt, format, scale, separator, decimal, notes });
}

/**
 * A workbook's proposal: its first sheet's header row, and its date cells, whose clock is the
 * cell's (the format is then used only for times written as text).
 */
async function proposeForWorkbook(file: string): Promise<{ text: string; notes: string[] }> {
  const table = await readExportTable(file, { separator: ',', decimal: '.' });
  const header = table.header;
  const timeAt = header.findIndex((h) => /date|time|timestamp|datum|tyd/i.test(h));
  const first = table.rows[0]?.cells ?? [];
  const sample = first.map((c) => (typeof c === 'string' ? c.trim() : ''));
  const notes: string[] = [];
  const cell = timeAt >= 0 ? first[timeAt] : undefined;
  let format: string | undefined;
  let scale: 'hourly' | 'daily' = 'daily';
  if (typeof cell === 'object') {
    const timed = table.rows.slice(0, 48).some((r) => {
      const c = r.cells[timeAt];
      return typeof c === 'object' && (c[3] !== 0 || c[4] !== 0);
    });
    scale = timed ? 'hourly' : 'daily';
    format = timed ? 'yyyy-mm-dd hh:mm' : 'yyyy-mm-dd';
    notes.push(
      `the times are the workbook's date cells (their clock is read as shown); "time.format" is used only for times written as text.`,
    );
  } else if (typeof cell === 'string') {
    format = formatOf(cell.trim());
    scale = format && /hh/.test(format) ? 'hourly' : 'daily';
  }
  return proposal({ header, sample, timeAt, format, scale, separator: ',', decimal: '.', notes });
}

function proposal(p: {
  header: string[];
  sample: string[];
  timeAt: number;
  format: string | undefined;
  scale: 'hourly' | 'daily';
  separator: string;
  decimal: string;
  notes: string[];
}): { text: string; notes: string[] } {
  const { header, sample, timeAt, format, scale, separator, decimal, notes } = p;
  const columns: Record<string, { type: string; unit?: string }> = {};
  header.forEach((h, i) => {
    if (i === timeAt) return;
    const guess = GUESSES.find(([re]) => re.test(h));
    if (!guess) {
      notes.push(
        `column ${JSON.stringify(h)}: no data type recognised; left out (add it under "columns" to import it).`,
      );
      return;
    }
    const unit = unitIn(h);
    columns[h] = { type: guess[1][scale], ...(unit ? { unit } : {}) };
    if (!unit)
      notes.push(`column ${JSON.stringify(h)}: no unit in its header; the type's own unit is assumed — check it.`);
  });
  if (timeAt < 0) notes.push('no column named like a date or time: set "time.column" and "time.format".');
  else if (!format)
    notes.push(`the time ${JSON.stringify(sample[timeAt])} has no format this proposal knows: set "time.format".`);
  else if (format.startsWith('dd/mm'))
    notes.push(`the times look day-first (${format}); a month-first export must say mm/dd/yyyy.`);
  notes.push('"zone" and "station" say what no export header does (its clock, where the station is): fill them in.');
  const mapping = {
    scale,
    separator,
    decimal,
    missing: ['', '-', 'NaN', 'NA', '-999', '-9999'],
    time: { column: timeAt >= 0 ? header[timeAt] : 'CHECK', format: format ?? 'CHECK' },
    zone: 'CHECK: UTC or an offset such as +02:00',
    station: { id: 'CHECK', name: 'CHECK', lat: 'CHECK', lon: 'CHECK', elevation: null },
    columns,
  };
  return { text: `${JSON.stringify(mapping, null, 2)}\n`, notes };
}

/** Writes the proposal for `file` to `out` and returns it. */
export async function writeProposal(file: string, out: string): Promise<{ text: string; notes: string[] }> {
  const p = await proposeMapping(file);
  await writeFile(out, p.text);
  return p;
}
