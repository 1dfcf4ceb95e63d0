/** A station SQL result as CSV, for the CLI and the app's download. */
import { csvField } from '../contract/csv.ts';
import type { StationSqlResult } from './station-sql.ts';

const cell = (v: unknown): string => (v === null || v === undefined ? '' : csvField(String(v)));

/** RFC 4180 CSV with a header row; numbers as JavaScript prints them (shortest exact form), empty cells for null. */
export function sqlResultCsv(result: Pick<StationSqlResult, 'columns' | 'rows'>): string {
  const lines = [result.columns.map((c) => cell(c.name)).join(','), ...result.rows.map((r) => r.map(cell).join(','))];
  return `${lines.join('\n')}\n`;
}
