// Period tables cut out of an answer and sent as columns (packed-tables.ts) come back as the same
// JSON, key order included, through a real structured clone with the buffers transferred: on the
// engine's own answers over the demo, and on bodies built to look almost like a table.
import { describe, expect, inject, it, vi } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import {
  MIN_TABLE_ROWS,
  packTables,
  TablesAhead,
  TablesReceived,
  unpackTables,
} from '../../src/worker/packed-tables.ts';
import { bodyOf, partMessage, responseMessage, type FromWorker } from '../../src/worker/protocol.ts';
import { PeriodTable } from '../../src/contract/period-table.ts';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import type { DatasetLocation } from '../../src/dataset/location.ts';
import { fileLocation } from '../../src/node/file-location.ts';

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

  it('send tables ahead of their answer: made as they arrive, named by the answer, keys sent once', async () => {
    const engine = createNodeEngine(demo);
    const stations = await engine.stations();
    const body = JSON.stringify({
      wkts: stations
        .slice(0, 4)
        .map((s) => `POINT (${s.lon + 0.01} ${s.lat})`)
        .join(';'),
      dataTypes: ['temperature_mean', 'rain'],
      options: { timeScale: 'hourly' },
      startDate: '2024-03-01T00:00:00',
      endDate: '2024-03-07T23:00:00',
    });
    const request = { method: 'POST', path: '/api/nearest-station/', body };
    const plain = await engine.handle(request);
    expect(plain.status).toBe(200);
    // As the engine Worker runs it: each table posted as it is made, the answer after.
    const ahead = new TablesAhead();
    const wire: FromWorker[] = [];
    const post = (message: FromWorker, transfer: ArrayBuffer[]) => wire.push(structuredClone(message, { transfer }));
    const made: PeriodTable[] = [];
    const answer = await engine.handle(request, {
      periodTables: true,
      onPeriodTable: (table) => {
        made.push(table);
        const { message, transfer } = partMessage(7, table, ahead);
        post(message, transfer);
      },
    });
    expect(made).toHaveLength(4);
    const reply = responseMessage(7, answer, 'object', ahead);
    // Sent ahead means not sent again: the answer names the parts and moves no buffer of theirs.
    expect(reply.transfer).toEqual([]);
    post(reply.message, reply.transfer);
    expect(wire.map((m) => m.type)).toEqual(['part', 'part', 'part', 'part', 'response']);
    const parts = wire.flatMap((m) => (m.type === 'part' ? [m.table] : []));
    expect(parts.filter((p) => p.keys).length, 'the period keys travel once').toBe(1);
    expect(parts.slice(1).every((p) => p.keysOf === 0)).toBe(true);
    const received = new TablesReceived();
    for (const p of parts) received.add(p);
    const last = wire.at(-1) as Extract<FromWorker, { type: 'response' }>;
    expect(JSON.stringify(bodyOf(last, received))).toBe(JSON.stringify(plain.body));
    // Without the parts the answer cannot be made: an error, never an answer with a hole.
    expect(() => bodyOf(structuredClone(last))).toThrow(/never arrived/);
    // Not asked for columns: no table is handed out, the objects are the answer.
    const handed: unknown[] = [];
    const objects = await engine.handle(request, { onPeriodTable: (t) => handed.push(t) });
    expect(handed).toEqual([]);
    expect(JSON.stringify(objects.body)).toBe(JSON.stringify(plain.body));
    await engine.close();
  });

  it('hand out each point table once, the same object the answer holds, before the answer', async () => {
    const engine = createNodeEngine(demo);
    const stations = await engine.stations();
    const first = stations[0]!;
    // Two points at one station, and one at another: a table per point, not per station.
    const wkts = [
      `POINT (${first.lon} ${first.lat})`,
      `POINT (${first.lon + 0.001} ${first.lat})`,
      `POINT (${stations[5]!.lon} ${stations[5]!.lat})`,
    ].join(';');
    const body = {
      wkts,
      dataTypes: ['temperature_max'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-03-31',
    };
    let resolved = false;
    const handed: Array<{ table: PeriodTable; before: boolean }> = [];
    const answer = (await engine
      .query('nearest-station', body, {
        periodTables: true,
        onPeriodTable: (table) => handed.push({ table, before: !resolved }),
      })
      .finally(() => {
        resolved = true;
      })) as unknown as Record<string, { data: unknown }>;
    const tables = Object.values(answer).map((a) => a.data);
    expect(tables).toHaveLength(3);
    expect(handed).toHaveLength(3);
    expect(tables.every((t) => handed.some((h) => h.table === t))).toBe(true);
    expect(new Set(handed.map((h) => h.table)).size).toBe(3);
    expect(handed.every((h) => h.before && h.table instanceof PeriodTable)).toBe(true);
    await engine.close();
  });

  it('hand out no table once the query has failed: a read that ends later makes none', async () => {
    const base = fileLocation(demo);
    const probe = createNodeEngine(demo);
    const withHours = (await probe.stations()).filter((s) => s.files.hourly);
    await probe.close();
    const [failing, slow] = [withHours[0]!, withHours[1]!];
    let slowDone = false;
    // The first point's station file cannot be read; the second's arrives 300 ms later.
    const location: DatasetLocation = {
      ...base,
      open(path, expected) {
        const source = base.open(path, expected);
        if (path === failing.files.hourly!.path)
          return {
            url: source.url,
            read: () => Promise.reject(new ClimateQueryError('dataset_unavailable', `${path} is gone (test)`)),
          };
        if (path === slow.files.hourly!.path)
          return {
            url: source.url,
            read: async (offset, length, signal) => {
              await new Promise((r) => setTimeout(r, 300));
              const bytes = await source.read(offset, length, signal);
              slowDone = true;
              return bytes;
            },
          };
        return source;
      },
    };
    const engine = createClimateEngine({ dataset: location });
    const handed: PeriodTable[] = [];
    let settled = false;
    const body = {
      wkts: `POINT (${failing.lon} ${failing.lat});POINT (${slow.lon} ${slow.lat})`,
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'hourly' },
      startDate: '2024-02-01T00:00:00',
      endDate: '2024-02-02T23:00:00',
    };
    await expect(
      engine
        .query('nearest-station', body, { periodTables: true, onPeriodTable: (t) => handed.push(t) })
        .finally(() => {
          settled = true;
        }),
    ).rejects.toMatchObject({ code: 'dataset_unavailable' });
    expect(settled).toBe(true);
    expect(slowDone, 'the slow read was still under way when the query failed').toBe(false);
    await vi.waitFor(() => expect(slowDone).toBe(true), { timeout: 5000 });
    await new Promise((r) => setTimeout(r, 50));
    expect(handed, 'no table handed out after the failure').toEqual([]);
    await engine.close();
  });

  it('refuse to make objects from a table whose columns moved to another thread', () => {
    const table = new PeriodTable(['a', 'b'], ['v'], [new Float64Array([1, 2])]);
    structuredClone(table.columns[0]!.buffer, { transfer: [table.columns[0]!.buffer as ArrayBuffer] });
    expect(() => table.rows()).toThrow(/holds 0 values for 2 periods/);
    expect(() => JSON.stringify(table)).toThrow(/holds 0 values/);
  });

  it('refuse a part that names keys of a part never received', () => {
    const received = new TablesReceived();
    expect(() => received.add({ part: 1, fields: ['a'], columns: [new Float64Array(2)], keysOf: 0 })).toThrow(
      /never arrived/,
    );
    received.add({ part: 0, fields: ['a'], columns: [new Float64Array([1, NaN])], keys: ['x', 'y'] });
    received.add({ part: 1, fields: ['b'], columns: [new Float64Array([2, 3])], keysOf: 0 });
    expect(received.rows(0)).toEqual({ x: { a: 1 }, y: { a: null } });
    expect(received.rows(1)).toEqual({ x: { b: 2 }, y: { b: 3 } });
    expect(unpackTables({ p: null }, [{ path: ['p'], part: 1 }], received)).toEqual({ p: received.rows(1) });
  });

  it('leave the packed body alone: the engine answer is not changed by packing it', () => {
    const body = { p: { data: periods(100, (i) => ({ v: i })), metadata: { d: 1 } } };
    const before = JSON.stringify(body);
    packTables(body);
    expect(JSON.stringify(body)).toBe(before);
  });
});
