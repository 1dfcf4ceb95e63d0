/** A result table as a file a person keeps: CSV with headings in words, and a name saying what it holds. */
import { csvComment, csvField } from '../contract/csv.ts';
import type { ResultTable } from './result-table.ts';
import { formatValue, seriesDecimals, seriesHeading } from './series-format.ts';

/**
 * The table as CSV (RFC 4180) a person can file: `about` lines first, each
 * as "# …" (what was asked, of which station or field, in which time zone,
 * from which dataset; pandas reads past them with `comment='#'`), then
 * headings in words with units, then values at each series' own step,
 * empty cells for null. `periodHeader` heads the first column.
 */
export function toCsv(t: ResultTable, periodHeader = 'Period', about: readonly string[] = []): string {
  const q = csvField;
  const pre = about.map(csvComment);
  const head = [periodHeader, ...t.series.map(seriesHeading)].map(q).join(',');
  const dec = t.series.map(seriesDecimals);
  const lines = t.rows.map((r, i) => [q(r), ...t.series.map((s, k) => formatValue(s.values[i], dec[k]!))].join(','));
  // The headings first and the notes after the data: a spreadsheet takes the first row as the
  // headings and the table as one block; pandas still reads past the notes (comment='#').
  return `${[head, ...lines, ...pre].join('\n')}\n`;
}

/**
 * A file name that says what a download holds: place, data and dates, e.g.
 * "paarl_temperature-max-rain-sum_2024-06-01_2024-06-30.csv"; letters,
 * digits and "-" only, at most 120 characters before the extension.
 */
export function downloadName(parts: ReadonlyArray<string | null | undefined>, ext: string): string {
  const slug = (x: string) =>
    x
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
  const name = parts
    .map((p) => slug(p ?? ''))
    .filter(Boolean)
    .join('_')
    .slice(0, 120)
    .replace(/[-_]+$/, '');
  return `${name || 'climate-query'}.${ext}`;
}
