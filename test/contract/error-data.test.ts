/**
 * Errors as data: every 400 points at the value at fault with a JSON
 * pointer, carries only the params its code documents, and the app's words
 * come from code, pointer and params — rewording a message changes nothing
 * a grower reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClimateQueryError, ERROR_PARAMS, toPointer } from '../../src/contract/errors.ts';
import { validateStationIndices } from '../../src/contract/station-indices.ts';
import { km2Text, validateNearestStation, validatePolygon } from '../../src/contract/validate.ts';
import { errorWords } from '../../src/ui/words.ts';
import { errorOf } from '../helpers/expect-error.ts';

const station = (over: Record<string, unknown> = {}) => ({
  wkts: 'POINT (18.86 -33.93)',
  dataTypes: ['rain_sum'],
  options: { timeScale: 'daily' },
  startDate: '2024-01-01',
  endDate: '2024-01-31',
  ...over,
});
const square = (edge: number, lon = 18.9) =>
  `POLYGON ((${lon} -33.9, ${lon + edge} -33.9, ${lon + edge} ${-33.9 + edge}, ${lon} ${-33.9 + edge}, ${lon} -33.9))`;
const polygon = (wkts: string) => ({
  wkts,
  dataType: 'windspeed',
  options: { subDataType: '20', dataExtent: 'sa', aggregationMethod: 'mean' },
});

type Validator = (body: unknown) => unknown;
/** Bad requests a client sends, each with the validator that reads it. */
const CASES: [string, Validator, Record<string, unknown>][] = [
  ['missing dates', validateNearestStation, station({ startDate: undefined })],
  ['second WKT broken', validateNearestStation, station({ wkts: 'POINT (18 -33); POINT (18 x)' })],
  ['empty item', validateNearestStation, station({ wkts: 'POINT (18 -33);;POINT (19 -33)' })],
  ['open ring', validatePolygon, polygon('POLYGON ((18 -34, 18.01 -34, 18.01 -33.99, 18 -33.98))')],
  [
    'hole not closed',
    validatePolygon,
    polygon(
      'POLYGON ((18 -34, 18.01 -34, 18.01 -33.99, 18 -34), (18.001 -33.999, 18.002 -33.999, 18.002 -33.998, 18.0015 -33.998))',
    ),
  ],
  [
    '11 points',
    validateNearestStation,
    station({
      wkts: Array(11)
        .fill(0)
        .map((_, i) => `POINT (18.${i} -33)`)
        .join(';'),
    }),
  ],
  ['second field too large', validatePolygon, polygon(`${square(0.005)};${square(0.05, 19.5)}`)],
  ['bad day', validateNearestStation, station({ startDate: '2024-02-30' })],
  ['start after end', validateNearestStation, station({ startDate: '2024-03-01' })],
  [
    'too many hours',
    validateNearestStation,
    station({
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'hourly' },
      startDate: '2000-01-01T00:00:00',
      endDate: '2024-01-01T00:00:00',
    }),
  ],
  ['bad scale', validateNearestStation, station({ options: { timeScale: 'weekly' } })],
  ['unknown type', validateNearestStation, station({ dataTypes: ['rain_sum', 'rain'] })],
  ['six types', validateNearestStation, station({ dataTypes: ['a', 'b', 'c', 'd', 'e', 'f'] })],
  ['a/b key', validateNearestStation, station({ options: { timeScale: 'daily', 'a/b~c': 1 } })],
  [
    'no such index',
    validateStationIndices,
    { wkts: 'POINT (18.86 -33.93)', indices: ['chill'], startDate: '2024-01-01', endDate: '2024-01-31' },
  ],
];

describe('errors as data', () => {
  it('paths written as the messages write them become JSON pointers (RFC 6901)', () => {
    expect(toPointer('wkts')).toBe('/wkts');
    expect(toPointer('options.timeScale')).toBe('/options/timeScale');
    expect(toPointer('dataTypes[2]')).toBe('/dataTypes/2');
    expect(toPointer('/wkts/1')).toBe('/wkts/1');
    expect(new ClimateQueryError('invalid_field', 'x', { field: 'options.dataTypes[0]' }).toBody()).toEqual({
      error: { code: 'invalid_field', message: 'x', field: '/options/dataTypes/0' },
    });
  });

  it.each(CASES)(
    '%s: the pointer resolves in the body and every param is documented for its code',
    (_name, run, body) => {
      const e = errorOf(() => run(body));
      expect(e.status).toBe(400);
      expect(e.field, e.message).toMatch(/^\//);
      const tokens = e
        .field!.split('/')
        .slice(1)
        .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
      // wkts is one string; its items are the texts between ";".
      const at = (value: unknown, t: string): unknown =>
        typeof value === 'string' ? value.split(';')[Number(t)] : (value as Record<string, unknown> | undefined)?.[t];
      const parent = tokens.slice(0, -1).reduce(at, body as unknown);
      const value = at(parent, tokens[tokens.length - 1]!);
      if (e.code === 'missing_field') expect(value).toBeUndefined();
      else expect(value, e.field).toBeDefined();
      expect(parent, e.field).toBeDefined();
      for (const name of Object.keys(e.params ?? {}))
        expect(ERROR_PARAMS[e.code], `${e.code}.${name}`).toHaveProperty(name);
      expect(e.toBody().error.params).toEqual(e.params);
    },
  );

  it('an item of wkts is /wkts/<index from 0>, and its params say which and why', () => {
    const e = errorOf(() => validateNearestStation(station({ wkts: 'POINT (18 -33); POINT (18 x)' })));
    expect(e.field).toBe('/wkts/1');
    expect(e.params).toMatchObject({ index: 1 });
    expect(e.message).toBe(`wkts item 2 ("POINT (18 x)") ${String(e.params?.reason)}`);
    const hole = errorOf(() => CASES[4]![1](CASES[4]![2]));
    expect(hole).toMatchObject({ field: '/wkts/0', params: { index: 0, part: 'hole 1' } });
    const big = errorOf(() => CASES[6]![1](CASES[6]![2]));
    expect(big).toMatchObject({ code: 'polygon_too_large', field: '/wkts/1', params: { index: 1, maxKm2: 2 } });
    expect(big.params?.areaKm2).toBeGreaterThan(2);
  });

  it('an area is written as the shape list writes it, but one just past the limit never reads as the limit', () => {
    expect(km2Text(10.2304)).toBe('10.230');
    expect(km2Text(2.0000004)).toBe('2.001');
    expect(km2Text(1.9999996)).toBe('2.000');
  });

  it('an unknown key with "/" or "~" is escaped in its pointer', () => {
    expect(errorOf(() => CASES[13]![1](CASES[13]![2]))).toMatchObject({
      code: 'unknown_field',
      field: '/options/a~1b~0c',
    });
  });

  it('the app’s words come from code, pointer and params: a reworded message changes none of them', () => {
    for (const [name, run, body] of CASES) {
      const e = errorOf(() => run(body));
      const reworded = {
        code: e.code,
        message: 'Something else entirely.',
        ...(e.field ? { field: e.field } : {}),
        ...(e.params ? { params: e.params } : {}),
      };
      for (const kind of ['point', 'polygon', null] as const) {
        const words = errorWords(e, kind);
        if (words === e.message.charAt(0).toUpperCase() + e.message.slice(1)) continue; // shown as written
        expect(errorWords(reworded, kind), name).toBe(words);
      }
    }
  });

  it('says "field G2", "point G2" and the From date where the contract says wkts item 2 and startDate', () => {
    const words = (i: number, kind: 'point' | 'polygon') =>
      errorWords(
        errorOf(() => CASES[i]![1](CASES[i]![2])),
        kind,
      );
    expect(words(1, 'point')).toMatch(/^Point G2 is not valid WKT: expected/);
    expect(words(4, 'polygon')).toMatch(/^Field G1, hole 1 is not closed/);
    expect(words(6, 'polygon')).toMatch(/^Field G2 has an area of \d+\.\d{3} km²; each field may be at most 2 km²/);
    expect(words(5, 'point')).toBe('The drawn shapes hold more than 10 points; this query takes 1 to 10.');
    expect(words(7, 'point')).toBe(
      'The From date "2024-02-30" has no day 30 in that month (daily dates are written yyyy-mm-dd, e.g. "2024-01-31").',
    );
    expect(words(8, 'point')).toBe('The From date "2024-03-01" is after the To date "2024-01-31".');
    expect(words(9, 'point')).toMatch(/^The dates span 210.385 hourly periods; one query may ask for at most /);
  });

  it('no file of the app reads an error’s message with a regular expression or replace()', () => {
    const dir = join(import.meta.dirname, '../../src/ui');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/message\)?\s*\.(replace|match)\(|\.(test|exec)\([^)]*message/);
    }
  });
});
