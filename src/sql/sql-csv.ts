/** A station SQL result as CSV, for the CLI and the app's download. */
import type { StationSqlResult } from './station-sql.ts';

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** RFC 4180 CSV with a header row; numbers as JavaScript prints them (shortest exact form), empty cells for null. */
export function sqlResultCsv(result: Pick<StationSqlResult, 'columns' | 'rows'>): string {
  const lines = [result.columns.map((c) => cell(c.name)).join(','), ...result.rows.map((r) => r.map(cell).join(','))];
  return `${lines.join('\n')}\n`;
}
