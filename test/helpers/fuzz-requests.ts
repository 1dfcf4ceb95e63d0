// Seeded mutations of valid requests, for the fuzz tests: wrong
// types, deep nesting, huge strings, unicode, numbers out of range, WKT and
// date mutations, and raw-text damage. Every request is a body text, as an
// HTTP client would send it.
import { mulberry32 } from '../../src/builder/prng.ts';
import { ClimateQueryError, type ErrorCode } from '../../src/contract/errors.ts';
import type { Endpoint } from '../../src/contract/types.ts';

/** A valid request per endpoint over the demo dataset (dates the demo holds). */
export const BASE_REQUESTS: Record<Endpoint, Record<string, unknown>[]> = {
  'nearest-station': [
    {
      wkts: 'POINT (19.03 -34.15);POINT (18.42 -33.92)',
      dataTypes: ['rain_sum', 'temperature_mean'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-10',
    },
    {
      wkts: 'POINT (19.3 -33.4)',
      dataTypes: ['rain'],
      options: { timeScale: 'hourly' },
      startDate: '2024-02-01T00:00:00',
      endDate: '2024-02-01T05:00:00',
    },
    {
      wkts: 'POINT (19.3 -33.4)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'monthly' },
      startDate: '2024-01',
      endDate: '2024-03',
    },
  ],
  'poly-aggregate': [
    {
      wkts: 'POLYGON ((18.2 -34.5, 20.5 -34.5, 20.5 -32.5, 18.2 -32.5, 18.2 -34.5))',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-05',
    },
    {
      wkts: 'MULTIPOLYGON (((18 -34.6, 19 -34.6, 19 -33.6, 18 -34.6)), ((19.5 -33.5, 21 -33.5, 21 -32, 19.5 -33.5)))',
      dataTypes: ['rain_sum', 'et0'],
      options: { timeScale: 'monthly' },
      startDate: '2024-01',
      endDate: '2024-02',
    },
  ],
  point: [
    {
      wkts: 'POINT (19.03 -34.15);POINT (19.31 -33.37)',
      dataType: 'temp',
      options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
      startDate: '2024-01-01',
      endDate: '2024-01-10',
    },
    {
      wkts: 'POINT (19.03 -34.15)',
      dataType: 'gdd',
      options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc' },
      startDate: '2020',
      endDate: '2024',
    },
    {
      wkts: 'POINT (19.03 -34.15)',
      dataType: 'rain',
      options: { subDataType: 'monthly_median', timeScale: 'calendar_month', dataExtent: 'sa' },
      startDate: '11',
      endDate: '02',
    },
    { wkts: 'POINT (19.03 -34.15)', dataType: 'windspeed', options: { subDataType: '100', dataExtent: 'sa' } },
  ],
  polygon: [
    {
      wkts: 'POLYGON ((19.0312 -34.1501, 19.0398 -34.1501, 19.0398 -34.1442, 19.0312 -34.1442, 19.0312 -34.1501))',
      dataType: 'temp',
      options: { subDataType: 'min', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'min' },
      startDate: '2024-06-01',
      endDate: '2024-06-10',
    },
    {
      wkts: 'POLYGON ((19.3105 -33.3702, 19.3191 -33.3702, 19.3150 -33.3640, 19.3105 -33.3702))',
      dataType: 'frost',
      options: { timeScale: 'monthly', dataExtent: 'tc', aggregationMethod: 'max' },
      startDate: '2024-05',
      endDate: '2024-07',
    },
    {
      wkts: 'POLYGON ((19.0312 -34.1501, 19.0398 -34.1501, 19.0398 -34.1442, 19.0312 -34.1501))',
      dataType: 'windspeed',
      options: { subDataType: '150', dataExtent: 'sa', aggregationMethod: 'mean' },
    },
  ],
  'station-indices': [
    {
      wkts: 'POINT (19.03 -34.15);POINT (19.3 -33.4)',
      indices: ['chill_portions', 'utah_chill_units', 'frost_days'],
      startDate: '2024-05-01',
      endDate: '2024-06-30',
      options: { by: 'season', chillSeason: '05-01/06-15' },
    },
    {
      wkts: 'POLYGON ((18.2 -34.5, 20.5 -34.5, 20.5 -32.5, 18.2 -32.5, 18.2 -34.5))',
      indices: ['gdd', 'winkler'],
      startDate: '2024-01-01',
      endDate: '2024-01-20',
      options: { crop: 'apples', maxGapHours: 3 },
    },
  ],
};

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, n: number) => Math.floor(r() * n);

const UNICODE = [
  'é',
  '中文',
  '🌧️',
  '\u202e',
  '\u0000',
  '\ud800',
  '\udfff',
  '\u200b',
  'ﬃ',
  'İ',
  '\uffff',
  '\n',
  '"',
  '\\',
  ';',
];
const NUMBERS = [
  '1e999',
  '-1e999',
  '-0',
  '1e-400',
  '9007199254740993',
  '0.0000001',
  '-180.0000001',
  '90.0000000001',
  '1E5',
  '.5',
  '5.',
  '0x10',
  '+1',
];

function hugeString(r: Rand): string {
  const n = pick(r, [1_000, 50_000, 400_000]);
  return pick(r, ['x', '1 1,', '(', ';', '[', '\u00e9', 'POINT (1 1);']).repeat(Math.ceil(n / 4));
}

function randomValue(r: Rand): unknown {
  switch (int(r, 9)) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick(r, [0, -1, 1e308, -1e308, 2 ** 53, 0.5, 17_569, 1e21]);
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return pick(r, UNICODE).repeat(1 + int(r, 5));
    case 6:
      return hugeString(r);
    case 7:
      return [randomValue(r), randomValue(r)];
    default:
      return { a: randomValue(r) };
  }
}

function mutateWkt(r: Rand, wkt: string): string {
  switch (int(r, 14)) {
    case 0:
      return wkt.slice(0, int(r, wkt.length));
    case 1: {
      const i = int(r, wkt.length);
      return (
        wkt.slice(0, i) + pick(r, ['(', ')', ',', ' ', ';', '-', '.', 'e', 'Z', 'EMPTY', ...UNICODE]) + wkt.slice(i)
      );
    }
    case 2: {
      const i = int(r, wkt.length);
      return wkt.slice(0, i) + wkt.slice(i + 1);
    }
    case 3:
      return wkt.replace(/-?\d+(\.\d+)?/, pick(r, NUMBERS));
    case 4:
      return wkt.replace(/\(/, '(((((');
    case 5:
      return wkt.replace(/(\d) /, '$1 1 ');
    case 6:
      return wkt.toLowerCase();
    case 7:
      return `${wkt};${wkt}`;
    case 8:
      return Array.from({ length: 2 + int(r, 30) }, (_, i) => wkt.replace(/\d\)/, `${i})`)).join(';');
    case 9: {
      const m = /\(\(([^()]*)\)/.exec(wkt);
      return m
        ? wkt.replace(m[1]!, `${m[1]!}, ${'19 -34, '.repeat(int(r, 25_000))}${m[1]!.split(',')[0]}`)
        : `${wkt}${' '.repeat(100_000)}`;
    }
    case 10:
      return pick(r, [
        'LINESTRING (1 1, 2 2)',
        'GEOMETRYCOLLECTION (POINT (1 1))',
        'POINT EMPTY',
        'POINT Z (1 1 1)',
        'MULTIPOINT ((1 1))',
        'POLYGON EMPTY',
        'POINT (1 1',
        '(',
        '',
        ' ',
        ';',
        'POINT (NaN 1)',
        'POINT (Infinity 1)',
      ]);
    case 11:
      return wkt.replace(/[()]/g, (c) => (c === '(' ? ')' : '('));
    case 12:
      return wkt.replace(/, /g, ',').replace(/ /g, '\t\n');
    default:
      return wkt.split(' ').reverse().join(' ');
  }
}

function mutateDate(r: Rand, d: unknown): unknown {
  const s = typeof d === 'string' ? d : '2024-01-01';
  return pick(r, [
    `${s}x`,
    s.slice(0, -1),
    s.replace(/\d/, '9'),
    '2023-02-29',
    '2024-13-01',
    '0000-01-01',
    '99999-01-01',
    '2024-01-01T24:00:00',
    '2024-01-01T00:30:00',
    '1799',
    '2201',
    '00',
    '13',
    '-1',
    s.replace(/-/g, '/'),
    '２０２４',
    hugeString(r),
    randomValue(r),
    '1800-01-01',
    '2200-12-31',
    '1800-01-01T00:00:00',
  ]);
}

/** Object fields at any depth, as paths. */
function paths(v: unknown, prefix: string[] = []): string[][] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [prefix];
  const out: string[][] = prefix.length ? [prefix] : [];
  for (const [k, c] of Object.entries(v)) out.push(...paths(c, [...prefix, k]));
  return out;
}

function setAt(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) {
    if (typeof o[k] !== 'object' || o[k] === null) o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  o[path[path.length - 1]!] = value;
}

function getAt(obj: Record<string, unknown>, path: string[]): unknown {
  let o: unknown = obj;
  for (const k of path) o = typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined;
  return o;
}

function deleteAt(obj: Record<string, unknown>, path: string[]): void {
  const parent = getAt(obj, path.slice(0, -1));
  if (typeof parent === 'object' && parent !== null) delete (parent as Record<string, unknown>)[path[path.length - 1]!];
}

const DEEP = '__DEEP__';

/** A change that keeps the request valid, so that fuzzed requests also reach the data. */
function benign(r: Rand, body: Record<string, unknown>): void {
  const wkts = body.wkts;
  switch (int(r, 4)) {
    case 0:
      if (typeof wkts === 'string')
        body.wkts = wkts.replace(/-?\d+\.\d+/g, (n) => (Number(n) + (r() - 0.5) * 1e-4).toFixed(6));
      break;
    case 1:
      if (typeof wkts === 'string')
        body.wkts = pick(r, [wkts.toLowerCase(), ` ${wkts} `, wkts.replace(/ \(/g, '('), wkts.replace(/, /g, ',\n')]);
      break;
    case 2: {
      // Same keys, another order.
      const entries = Object.entries(body).sort(() => r() - 0.5);
      for (const k of Object.keys(body)) delete body[k];
      for (const [k, v] of entries) body[k] = v;
      break;
    }
    default:
      if (typeof body.endDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(body.endDate))
        body.endDate = `${body.endDate.slice(0, 8)}${String(10 + int(r, 18)).padStart(2, '0')}`;
  }
}

/** One mutated request body (as text) for `endpoint`, from `r`. */
export function mutatedBody(r: Rand, endpoint: Endpoint): string {
  const body = structuredClone(pick(r, BASE_REQUESTS[endpoint]));
  // A fifth stay valid (changed only in ways the contract allows); the rest get 1–3 hostile changes.
  if (r() < 0.2) {
    benign(r, body);
    return JSON.stringify(body);
  }
  const rounds = 1 + int(r, 3);
  for (let i = 0; i < rounds; i++) {
    const fields = paths(body);
    const path = pick(r, fields);
    const name = path[path.length - 1]!;
    const kind = int(r, 10);
    if (name === 'wkts' && kind < 5) setAt(body, path, mutateWkt(r, String(getAt(body, path) ?? '')));
    else if ((name === 'startDate' || name === 'endDate') && kind < 5)
      setAt(body, path, mutateDate(r, getAt(body, path)));
    else if (kind === 5) deleteAt(body, path);
    else if (kind === 6)
      setAt(
        body,
        [
          ...path.slice(0, -1),
          pick(r, [
            'dataType',
            'dataTypes',
            'extra',
            'timeScale',
            '__proto__',
            'constructor',
            hugeString(r).slice(0, 5000),
          ]),
        ],
        randomValue(r),
      );
    else if (kind === 7) setAt(body, path, DEEP);
    else if (kind === 8 && Array.isArray(getAt(body, path)))
      setAt(body, path, [
        ...(getAt(body, path) as unknown[]),
        ...Array.from({ length: int(r, 8) }, () => pick(r, ['rain_sum', 'et0', 'temp', randomValue(r)])),
      ]);
    else setAt(body, path, randomValue(r));
  }
  let text = JSON.stringify(body);
  // A value nested thousands deep, spliced into the text as a client would send it.
  const depth = pick(r, [17, 100, 20_000]);
  text = text.replace(`"${DEEP}"`, `${'['.repeat(depth)}${']'.repeat(depth)}`);
  // Raw-text damage for a few: truncation, a flipped character, a number literal JSON.stringify cannot write.
  switch (int(r, 12)) {
    case 0:
      return text.slice(0, int(r, text.length));
    case 1: {
      const i = int(r, text.length);
      return text.slice(0, i) + pick(r, ['{', '}', '"', ',', ':', '\\', '\u0000', 'é']) + text.slice(i + 1);
    }
    case 2:
      return text.replace(/-?\d+(\.\d+)?(?=[,}\]])/, pick(r, NUMBERS));
    case 3:
      return pick(r, ['', 'null', '[]', '"x"', '0', 'true', '{"wkts":', '\ufeff{}', '{}']);
    default:
      return text;
  }
}

/** Every documented error code and its status (docs/contract.md). */
export const DOCUMENTED_4XX: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_json',
  'missing_field',
  'invalid_field',
  'unknown_field',
  'unknown_data_type',
  'invalid_wkt',
  'limit_exceeded',
  'invalid_date',
  'invalid_date_range',
  'too_many_periods',
  'polygon_too_large',
  'body_too_large',
  'not_found',
  'method_not_allowed',
  'bad_request',
  'request_timeout',
  'headers_too_large',
]);

/** Why an answer is not "200, or a documented 4xx JSON error", or null when it is. */
export function unexpected(status: number, body: unknown): string | null {
  if (status === 200)
    return typeof body === 'object' && body !== null && !('error' in body) ? null : 'a 200 without an answer object';
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  if (typeof code !== 'string' || !DOCUMENTED_4XX.has(code as ErrorCode))
    return `status ${status} with code ${String(code)}`;
  if (new ClimateQueryError(code as ErrorCode, '').status !== status) return `code ${code} with status ${status}`;
  return null;
}

/** A seeded generator of mutated bodies. */
export function fuzzer(seed: number): (endpoint: Endpoint) => string {
  const r = mulberry32(seed);
  return (endpoint) => mutatedBody(r, endpoint);
}
