/**
 * A logger's or a network's export as rows of cells, whatever its file: a delimited text (CSV,
 * semicolons, tabs; the mapping's separator) or an Excel workbook (`.xlsx`, through
 * read-excel-file; the mapping's `sheet`, default the first). A spreadsheet's numbers come as the
 * text the mapping's decimal mark reads back, and its date cells as the clock time they show, so
 * one reader (mapped-csv.ts) takes both. A workbook is a zip: its size and what it would inflate
 * to are bounded before it is opened.
 */
import { readInputText } from './input-bytes.ts';
import { readFile, stat } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import { splitFields } from './csv-fields.ts';

/** A cell: text as the export shows it, or a spreadsheet's date cell as [y, m, d, h, min, s] of its clock. */
export type Cell = string | readonly [number, number, number, number, number, number];

export interface ExportTable {
  header: string[];
  /** Data rows with their line (text) or row (sheet) number, from 1 for the header. */
  rows: Array<{ line: number; cells: Cell[] }>;
}

/** Most bytes a workbook may be, and may inflate to. */
export const MAX_WORKBOOK_BYTES = 64 * 1024 * 1024;
export const MAX_WORKBOOK_INFLATED = 512 * 1024 * 1024;

/** Whether `path` is a workbook. */
export function isWorkbook(path: string): boolean {
  return /\.xlsx$/i.test(path);
}

/** The table of `path`, read with the mapping's separator, decimal mark and sheet. */
export async function readExportTable(
  path: string,
  o: { separator: string; decimal: string; sheet?: string | number },
): Promise<ExportTable> {
  if (/\.xls$/i.test(path))
    throw new BuildError(
      'invalid_input',
      `${basename(path)} is an Excel 97–2003 workbook (.xls); save it as .xlsx or CSV.`,
      {
        file: path,
      },
    );
  return isWorkbook(path) ? readWorkbook(path, o) : readDelimited(path, o.separator);
}

async function readDelimited(path: string, separator: string): Promise<ExportTable> {
  const lines = (await readInputText(path, 'utf8')).replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (splitFields(lines[0] ?? '', separator) ?? []).map((h) => h.trim());
  const rows: ExportTable['rows'] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    const f = splitFields(lines[i]!, separator);
    if (!f)
      throw new BuildError(
        'invalid_input',
        `${basename(path)} line ${i + 1}: its quotes do not close, or text follows a closing quote.`,
        { file: path, row: i + 1 },
      );
    // A value holding the separator unquoted (12,5 with a decimal comma in a comma-separated file)
    // shifts every field after it: refused, never read into the next column.
    if (f.length !== header.length)
      throw new BuildError(
        'invalid_input',
        `${basename(path)} line ${i + 1}: ${f.length} fields where the header has ${header.length}. A value holding the separator (${JSON.stringify(separator)}) must be quoted; a decimal comma needs another separator or quotes.`,
        { file: path, row: i + 1 },
      );
    rows.push({ line: i + 1, cells: f });
  }
  return { header, rows };
}

async function readWorkbook(path: string, o: { decimal: string; sheet?: string | number }): Promise<ExportTable> {
  const name = basename(path);
  const size = (await stat(path)).size;
  if (size > MAX_WORKBOOK_BYTES)
    throw new BuildError(
      'invalid_input',
      `${name} is ${size} bytes, more than the ${MAX_WORKBOOK_BYTES} a workbook may be; save the sheet as CSV.`,
      {
        file: path,
      },
    );
  const bytes = await readFile(path);
  const inflated = zipInflatedBytes(bytes);
  if (inflated === null)
    throw new BuildError('invalid_input', `${name} is not an Excel workbook (.xlsx, a zip): save it as .xlsx or CSV.`, {
      file: path,
    });
  if (inflated > MAX_WORKBOOK_INFLATED)
    throw new BuildError(
      'invalid_input',
      `${name} would inflate to ${inflated} bytes, more than the ${MAX_WORKBOOK_INFLATED} a workbook may; save the sheet as CSV.`,
      {
        file: path,
      },
    );
  // The claims are not enough: the reader trusts each entry's own header. Every entry is inflated
  // here once, bounded, and must be what the directory says.
  const why = zipEntriesProblem(bytes, MAX_WORKBOOK_INFLATED);
  if (why)
    throw new BuildError('invalid_input', `${name} is not a workbook this reads: ${why}; save the sheet as CSV.`, {
      file: path,
    });
  const { readSheet } = await import('read-excel-file/node');
  let data: unknown[][];
  try {
    data = (await readSheet(bytes, o.sheet ?? 1)) as unknown[][];
  } catch (err) {
    throw new BuildError(
      'invalid_input',
      `${name}: ${(err as Error).message}${o.sheet === undefined ? '' : ` (sheet ${JSON.stringify(o.sheet)})`}.`,
      {
        file: path,
        cause: err,
      },
    );
  }
  const text = (v: unknown): Cell => {
    if (v === null || v === undefined) return '';
    if (v instanceof Date) {
      // A date cell holds a clock time, no zone (the library gives it as UTC): the mapping's zone says which.
      // Excel stores it as a fraction of a day: to the nearest second (01:00 comes back as 00:59:59.999).
      const t = new Date(Math.round(v.getTime() / 1000) * 1000);
      return [
        t.getUTCFullYear(),
        t.getUTCMonth() + 1,
        t.getUTCDate(),
        t.getUTCHours(),
        t.getUTCMinutes(),
        t.getUTCSeconds(),
      ];
    }
    if (typeof v === 'number') return o.decimal === '.' ? String(v) : String(v).replace('.', o.decimal);
    return String(v);
  };
  const [head = [], ...rest] = data;
  return {
    header: head.map((h) => String(text(h)).trim()),
    rows: rest.map((r, i) => ({ line: i + 2, cells: r.map(text) })).filter((r) => r.cells.some((c) => c !== '')),
  };
}

/** One entry of a zip's central directory: how it is stored, its claimed sizes, where its local header is. */
interface ZipEntry {
  method: number;
  packed: number;
  claimed: number;
  local: number;
}

/**
 * The entries a zip's central directory lists (found from its end-of-central-directory record, in
 * its last 64 KiB + 22 bytes), or why there are none: not a zip, or a directory cut short.
 */
function zipDirectory(bytes: Uint8Array): ZipEntry[] | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return 'it is not a zip';
  const out: ZipEntry[] = [];
  let at = view.getUint32(eocd + 16, true);
  for (let k = view.getUint16(eocd + 10, true); k > 0; k--) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) return 'its directory is cut';
    out.push({
      method: view.getUint16(at + 10, true),
      packed: view.getUint32(at + 20, true),
      claimed: view.getUint32(at + 24, true),
      local: view.getUint32(at + 42, true),
    });
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return out;
}

/**
 * What a zip's entries inflate to, from its central directory (the sizes its entries claim), or
 * null when `bytes` is not a zip. 0xFFFFFFFF (a ZIP64 size) counts as larger than any workbook.
 */
export function zipInflatedBytes(bytes: Uint8Array): number | null {
  const entries = zipDirectory(bytes);
  if (typeof entries === 'string') return null;
  return entries.reduce((n, e) => n + (e.claimed === 0xffffffff ? Number.MAX_SAFE_INTEGER / 2 : e.claimed), 0);
}

/**
 * Why a zip's entries are not what its central directory says, or null: each entry is inflated
 * (at most its claimed size, and `bound` in all) and must be exactly its claimed size, stored or
 * deflated (the methods a workbook uses).
 */
export function zipEntriesProblem(bytes: Uint8Array, bound: number): string | null {
  const entries = zipDirectory(bytes);
  if (typeof entries === 'string') return entries;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (const { method, packed, claimed, local } of entries) {
    if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50)
      return 'an entry is not where its directory says';
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + packed > bytes.length) return 'an entry runs past the file';
    if (total + claimed > bound) return `its entries inflate to more than ${bound} bytes`;
    if (method === 0) {
      if (packed !== claimed) return 'a stored entry is not its claimed size';
    } else if (method === 8) {
      let out: Buffer;
      try {
        out = inflateRawSync(bytes.subarray(start, start + packed), { maxOutputLength: Math.max(1, claimed + 1) });
      } catch {
        return 'an entry inflates past its claimed size, or does not inflate';
      }
      if (out.length !== claimed) return 'an entry inflates to another size than claimed';
    } else return `an entry is compressed by method ${method}`;
    total += claimed;
  }
  return null;
}
