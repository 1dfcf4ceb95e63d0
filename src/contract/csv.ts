/**
 * CSV cells and comment lines that a spreadsheet opens as the data they are
 * (RFC 4180, and OWASP's rule against CSV injection): a cell whose text could
 * start a formula (`=`, `+`, `-`, `@`, a tab or a carriage return) is written
 * with a leading `'`, unless it is a plain number; a cell with a comma, quote
 * or line break is quoted. A shape's name or a dataset's notice comes from
 * whoever made the link or the dataset, so every text is treated this way.
 */

/** A plain decimal number, as the app and DuckDB print them ("-5.2", "1e-7"): never a formula. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One CSV field for `text`: neutralised when it could start a formula, quoted when it must be. */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * A `# …` line (pandas reads past it with `comment='#'`) that keeps its text (a request's JSON stays
 * copyable) yet opens no formula in a spreadsheet, which splits it at commas: line breaks of any kind
 * become spaces (a lone CR had started a new row), and each comma-separated piece that would start a
 * formula, bare or as a quoted field (`,=…`, `,"@…`), gets a leading `'`, unless it is a plain number.
 */
export function csvComment(text: string): string {
  const pieces = `# ${text.replace(/[\r\n\u2028\u2029\u0085]+/g, ' ')}`.split(',');
  return pieces
    .map((p, i) => {
      if (i === 0) return p;
      const quote = p.startsWith('"') ? '"' : '';
      const rest = p.slice(quote.length);
      return /^[=+\-@\t]/.test(rest) && !NUMBER.test(rest) ? `${quote}'${rest}` : p;
    })
    .join(',');
}

/** The byte-order mark a downloaded CSV starts with, so a spreadsheet that guesses reads UTF-8 (°C, not Â°C). */
export const CSV_BOM = '\uFEFF';
