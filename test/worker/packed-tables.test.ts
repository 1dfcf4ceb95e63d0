// Period tables cut out of an answer and sent as columns (packed-tables.ts) come back as the same
// JSON, key order included, through a real structured clone with the buffers transferred: on the
// engine's own answers over the demo, and on bodies built to look almost like a table.
import { describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { MIN_TABLE_ROWS, packTables, unpackTables } from '../../src/worker/packed-tables.ts';
import { bodyOf, responseMessage } from '../../src/worker/protocol.ts';

const demo = inject('demoDataset');

/** What the page receives: the message through structured clone, buffers transferred. */
function overTheWire(body: unknown): { text: string; tables: number } {
  const { message, transfer } = responseMessage(1, { status: 200, body });
  const received = structuredClone(message, { transfer });
  for (const b of transfer) expect(b.byteLength).toBe(0); // moved, not copied
  return {
    text: JSON.stringify(bodyOf(received)),
    tables: (received as { tables?: unknown[] }).tables?.length ?? 0,
  };
}

const periods = (n: number, row: (i: number) => unknown) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`2024-01-${String(i).padStart(3, '0')}`, row(i)]));

describe('packed period tables', () => {
  it('give back the engine answers as the same JSON text', async () => {
    const engine = createNodeEngine(demo);
    const stations = await engine.stations();
    const wkts = stations
      .slice(0, 3)
      .map((s) => `POINT (${s.lon + 0.01} ${s.lat})`)
      .join(';');
    const square = 'POLYGON ((17 -35, 33 -35, 33 -22, 17 -22, 17 -35))';
    const asks: Array<[string, object, number]> = [
      [
        '/api/nearest-station/',
        {
          wkts,
          dataTypes: ['temperature_mean', 'rain', 'humidity'],
          options: { timeScale: 'hourly' },
          startDate: '2024-01-01T00:00:00',
          endDate: '2024-01-10T23:00:00',
        },
        3,
      ],
      [
        '/api/nearest-station/',
        {
          wkts,
          dataTypes: ['temperature_max'],
          options: { timeScale: 'daily' },
          startDate: '2024-01-01',
          endDate: '2024-01-20',
        },
        0,
      ],
      [
        '/api/poly-aggregate/',
        {
          wkts: square,
          dataTypes: ['temperature_mean', 'rain_sum'],
          options: { timeScale: 'daily' },
          startDate: '2024-01-01',
          endDate: '2024-06-30',
        },
        1,
      ],
    ];
    for (const [path, body, tables] of asks) {
      const a = await engine.handle({ method: 'POST', path, body: JSON.stringify(body) });
      expect(a.status, path).toBe(200);
      const wire = overTheWire(a.body);
      expect(wire.tables, `${path}: tables packed`).toBeGreaterThanOrEqual(tables);
      expect(wire.text).toBe(JSON.stringify(a.body));
      // As the engine Worker asks: the period tables left as columns, never made into objects there.
      const columns = await engine.handle({ method: 'POST', path, body: JSON.stringify(body) }, { periodTables: true });
      expect(JSON.stringify(columns.body), `${path}: written as JSON`).toBe(JSON.stringify(a.body));
      const sent = overTheWire(columns.body);
      expect(sent.tables, `${path}: every period table sent as columns`).toBeGreaterThanOrEqual(
        path.includes('nearest') ? 3 : 1,
      );
      expect(sent.text).toBe(JSON.stringify(a.body));
    }
    await engine.close();
  });

  it('pack every table of numbers and nulls, in any key order, and nothing else', () => {
    const table = periods(MIN_TABLE_ROWS, (i) => ({ b: i % 3 ? i / 7 : null, a: -0, '10': i, z: Number.MAX_VALUE }));
    const cases: Array<[string, unknown, number]> = [
      ['a table at the top', table, 1],
      ['tables side by side and deep', { x: { data: table, metadata: { n: 1 } }, y: { data: table }, s: 'text' }, 2],
      ['one row short', periods(MIN_TABLE_ROWS - 1, () => ({ a: 1 })), 0],
      ['a string among the values', periods(80, (i) => ({ a: i === 79 ? 'x' : 1 })), 0],
      ['keys in another order in one row', periods(80, (i) => (i === 40 ? { b: 1, a: 2 } : { a: 2, b: 1 })), 0],
      ['a key missing in one row', periods(80, (i) => (i === 40 ? { a: 2 } : { a: 2, b: 1 })), 0],
      ['an extra key in the last row', periods(80, (i) => (i === 79 ? { a: 2, b: 1, c: 3 } : { a: 2, b: 1 })), 0],
      ['an array row', periods(80, () => [1, 2]), 0],
      ['a nested object value', periods(80, () => ({ a: { b: 1 } })), 0],
      ['undefined', periods(80, () => ({ a: undefined })), 0],
      ['rows with no keys', periods(80, () => ({})), 0],
      ['a table below the depth looked at', { a: { b: { c: { d: table } } } }, 0],
    ];
    for (const [what, body, n] of cases) {
      const { body: cut, tables } = packTables(body);
      expect(tables.length, what).toBe(n);
      expect(JSON.stringify(unpackTables(structuredClone(cut), structuredClone(tables))), what).toBe(
        JSON.stringify(body),
      );
      if (n === 0) expect(cut, what).toBe(body);
    }
    // -0 and null survive as themselves, not only as the same text.
    const back = unpackTables(...(Object.values(packTables(table)).slice(0, 2) as [unknown, never])) as typeof table;
    const first = Object.values(back)[0] as Record<string, unknown>;
    expect(Object.is(first.a, -0)).toBe(true);
    expect(first.b).toBeNull();
    expect(Object.keys(first)).toEqual(['10', 'b', 'a', 'z']);
  });

  it('send one keys array for tables with the same periods, and their own for others', () => {
    const body = {
      a: { data: periods(100, (i) => ({ v: i })) },
      b: { data: periods(100, (i) => ({ v: -i, w: null })) },
      c: { data: periods(101, (i) => ({ v: i })) },
      d: { data: Object.fromEntries(Object.entries(periods(100, (i) => ({ v: i }))).reverse()) },
    };
    const { message, transfer } = responseMessage(1, { status: 200, body });
    const received = structuredClone(message, { transfer }) as { tables: Array<{ path: string[]; keys: string[] }> };
    const keysOf = (station: string) => received.tables.find((t) => t.path[0] === station)!.keys;
    // The same periods: one array, still one after the copy the page receives.
    expect(keysOf('b')).toBe(keysOf('a'));
    // One period more, or the same periods in another order: keys of their own.
    expect(keysOf('c')).not.toBe(keysOf('a'));
    expect(keysOf('d')).not.toBe(keysOf('a'));
    expect(keysOf('d')[0]).toBe(keysOf('a')[99]);
    expect(JSON.stringify(bodyOf(received as never))).toBe(JSON.stringify(body));
  });

  it('leave the packed body alone: the engine answer is not changed by packing it', () => {
    const body = { p: { data: periods(100, (i) => ({ v: i })), metadata: { d: 1 } } };
    const before = JSON.stringify(body);
    packTables(body);
    expect(JSON.stringify(body)).toBe(before);
  });
});
