// Every rule and limit of the contract at its boundary and one past it.
import { describe, expect, it } from 'vitest';
import {
  validateNearestStation,
  validatePoint,
  validatePolyAggregate,
  validatePolygon,
} from '../../src/contract/validate.ts';
import { DAILY_TYPES, HOURLY_TYPES, MONTHLY_TYPES } from '../../src/contract/station-data-types.ts';
import { MAX_PERIODS } from '../../src/contract/periods.ts';
import { MAX_VERTICES } from '../../src/contract/wkt.ts';
import { errorOf } from '../helpers/expect-error.ts';

const points = (n: number) => Array.from({ length: n }, (_, i) => `POINT (${18 + i * 0.01} -33.9)`).join(';');
const station = (over: Record<string, unknown> = {}) => ({
  wkts: 'POINT (18.86 -33.93)',
  dataTypes: ['temperature_mean'],
  options: { timeScale: 'daily' },
  startDate: '2024-01-01',
  endDate: '2024-01-31',
  ...over,
});
// A square of side s degrees at the Cape (about 0.0126° ≈ 1.4 km → under 2 km²).
const square = (s: number, x = 18.9, y = -33.9) =>
  `POLYGON ((${x} ${y}, ${x + s} ${y}, ${x + s} ${y + s}, ${x} ${y + s}, ${x} ${y}))`;
const raster = (over: Record<string, unknown> = {}) => ({
  wkts: 'POINT (18.86 -33.93)',
  dataType: 'temp',
  options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
  startDate: '2024-01-01',
  endDate: '2024-01-31',
  ...over,
});

describe('station requests', () => {
  it('accepts a minimal valid request and enumerates every period', () => {
    const q = validateNearestStation(station());
    expect(q.range.keys).toHaveLength(31);
    expect(q.range.keys[0]).toBe('2024-01-01');
    expect(q.range.keys[30]).toBe('2024-01-31');
    expect(q.geometries[0]).toMatchObject({ kind: 'point', key: 'POINT (18.86 -33.93)', position: [18.86, -33.93] });
  });

  it('takes 1 to 10 points, not 11, and not 0', () => {
    expect(validateNearestStation(station({ wkts: points(10) })).geometries).toHaveLength(10);
    expect(errorOf(() => validateNearestStation(station({ wkts: points(11) })))).toMatchObject({
      code: 'limit_exceeded',
      field: '/wkts',
      status: 400,
    });
    expect(errorOf(() => validateNearestStation(station({ wkts: '' })))).toMatchObject({
      code: 'invalid_wkt',
      field: '/wkts',
    });
  });

  it('takes 1 to 5 data types, not 6, not 0, as an array', () => {
    expect(validateNearestStation(station({ dataTypes: DAILY_TYPES.slice(0, 5) })).dataTypes).toHaveLength(5);
    expect(errorOf(() => validateNearestStation(station({ dataTypes: DAILY_TYPES.slice(0, 6) })))).toMatchObject({
      code: 'limit_exceeded',
      field: '/dataTypes',
    });
    expect(errorOf(() => validateNearestStation(station({ dataTypes: [] })))).toMatchObject({
      code: 'limit_exceeded',
      field: '/dataTypes',
    });
    expect(errorOf(() => validateNearestStation(station({ dataTypes: 'temperature_mean' })))).toMatchObject({
      code: 'invalid_field',
      field: '/dataTypes',
    });
    expect(errorOf(() => validateNearestStation(station({ dataTypes: ['rain_sum', 'rain_sum'] })))).toMatchObject({
      field: '/dataTypes/1',
    });
  });

  it('accepts exactly the names of table 2.4 per time scale, including its spellings', () => {
    for (const [scale, names] of [
      ['hourly', HOURLY_TYPES],
      ['daily', DAILY_TYPES],
      ['monthly', MONTHLY_TYPES],
    ] as const) {
      const dates = {
        hourly: ['2024-01-01T00:00:00', '2024-01-01T01:00:00'],
        daily: ['2024-01-01', '2024-01-01'],
        monthly: ['2024-01', '2024-01'],
      }[scale];
      for (const name of names) {
        expect(
          validateNearestStation(
            station({ dataTypes: [name], options: { timeScale: scale }, startDate: dates[0], endDate: dates[1] }),
          ).dataTypes,
        ).toEqual([name]);
      }
    }
    expect(HOURLY_TYPES).toContain('solar_radation');
    expect(DAILY_TYPES).toContain('leaf_wetnes_min');
    expect(MONTHLY_TYPES).toContain('leaf_wetnes_min');
    expect(HOURLY_TYPES).toHaveLength(15);
    expect(DAILY_TYPES).toHaveLength(33);
    expect(MONTHLY_TYPES).toHaveLength(29);
    // A correct spelling of a misspelt name is not a name.
    const e = errorOf(() => validateNearestStation(station({ dataTypes: ['leaf_wetness_min'] })));
    expect(e).toMatchObject({ code: 'unknown_data_type', field: '/dataTypes/0' });
    // A name valid at another scale says which.
    const h = errorOf(() => validateNearestStation(station({ dataTypes: ['rain'] })));
    expect(h.message).toContain('"hourly"');
    expect(
      errorOf(() =>
        validateNearestStation(
          station({ dataTypes: ['et0'], options: { timeScale: 'monthly' }, startDate: '2024-01', endDate: '2024-01' }),
        ),
      ).code,
    ).toBe('unknown_data_type');
    expect(errorOf(() => validateNearestStation(station({ dataTypes: ['Temperature_mean'] }))).code).toBe(
      'unknown_data_type',
    );
  });

  it('requires timeScale to be hourly, daily or monthly', () => {
    expect(errorOf(() => validateNearestStation(station({ options: {} })))).toMatchObject({
      code: 'missing_field',
      field: '/options/timeScale',
    });
    expect(errorOf(() => validateNearestStation(station({ options: { timeScale: 'annual' } })))).toMatchObject({
      code: 'invalid_field',
      field: '/options/timeScale',
    });
    expect(errorOf(() => validateNearestStation(station({ options: 'daily' })))).toMatchObject({ field: '/options' });
  });

  it('checks date formats per time scale; hourly minutes and seconds must be 00:00', () => {
    const hourly = (s: string, e: string) => station({ options: { timeScale: 'hourly' }, startDate: s, endDate: e });
    expect(validateNearestStation(hourly('2024-01-01T00:00:00', '2024-01-01T23:00:00')).range.keys).toHaveLength(24);
    expect(errorOf(() => validateNearestStation(hourly('2024-01-01T00:30:00', '2024-01-01T23:00:00')))).toMatchObject({
      code: 'invalid_date',
      field: '/startDate',
    });
    expect(errorOf(() => validateNearestStation(hourly('2024-01-01T00:00:00', '2024-01-01T23:00:01')))).toMatchObject({
      code: 'invalid_date',
      field: '/endDate',
    });
    expect(errorOf(() => validateNearestStation(hourly('2024-01-01T24:00:00', '2024-01-02T00:00:00'))).code).toBe(
      'invalid_date',
    );
    expect(errorOf(() => validateNearestStation(hourly('2024-01-01 00:00:00', '2024-01-01T01:00:00'))).code).toBe(
      'invalid_date',
    );
    expect(errorOf(() => validateNearestStation(station({ startDate: '2024-02-30' }))).code).toBe('invalid_date');
    expect(validateNearestStation(station({ startDate: '2024-02-29', endDate: '2024-02-29' })).range.keys).toEqual([
      '2024-02-29',
    ]);
    expect(
      errorOf(() => validateNearestStation(station({ startDate: '2023-02-29', endDate: '2023-03-01' }))).code,
    ).toBe('invalid_date');
    expect(errorOf(() => validateNearestStation(station({ startDate: '2024-1-01' }))).code).toBe('invalid_date');
    expect(errorOf(() => validateNearestStation(station({ startDate: 20240101 }))).code).toBe('invalid_date');
    const monthly = validateNearestStation(
      station({ options: { timeScale: 'monthly' }, dataTypes: ['rain_sum'], startDate: '2023-11', endDate: '2024-02' }),
    );
    expect(monthly.range.keys).toEqual(['2023-11-01', '2023-12-01', '2024-01-01', '2024-02-01']);
    expect(
      errorOf(() =>
        validateNearestStation(
          station({ options: { timeScale: 'monthly' }, startDate: '2024-13', endDate: '2024-13' }),
        ),
      ).code,
    ).toBe('invalid_date');
    expect(
      errorOf(() =>
        validateNearestStation(
          station({ options: { timeScale: 'monthly' }, startDate: '2024-01-01', endDate: '2024-02' }),
        ),
      ).code,
    ).toBe('invalid_date');
  });

  it('accepts startDate equal to endDate and rejects startDate after endDate', () => {
    expect(validateNearestStation(station({ startDate: '2024-03-01', endDate: '2024-03-01' })).range.keys).toEqual([
      '2024-03-01',
    ]);
    expect(
      errorOf(() => validateNearestStation(station({ startDate: '2024-03-02', endDate: '2024-03-01' }))),
    ).toMatchObject({ code: 'invalid_date_range', field: '/startDate' });
  });

  it(`caps a request at ${MAX_PERIODS} periods`, () => {
    // 8784 + 8760 + 24 = 17568 hours from 2024-01-01T00:00 to 2026-01-01T23:00.
    const ok = validateNearestStation(
      station({ options: { timeScale: 'hourly' }, startDate: '2024-01-01T00:00:00', endDate: '2026-01-01T23:00:00' }),
    );
    expect(ok.range.keys).toHaveLength(MAX_PERIODS);
    expect(ok.range.keys.at(-1)).toBe('2026-01-01T23:00:00');
    const e = errorOf(() =>
      validateNearestStation(
        station({ options: { timeScale: 'hourly' }, startDate: '2024-01-01T00:00:00', endDate: '2026-01-02T00:00:00' }),
      ),
    );
    expect(e).toMatchObject({ code: 'too_many_periods', field: '/endDate' });
  });

  it('poly-aggregate takes exactly one POLYGON or MULTIPOLYGON', () => {
    expect(validatePolyAggregate(station({ wkts: square(0.5) })).geometries).toHaveLength(1);
    const multi = 'MULTIPOLYGON (((18 -34, 19 -34, 19 -33, 18 -34)), ((20 -34, 21 -34, 21 -33, 20 -34)))';
    expect(validatePolyAggregate(station({ wkts: multi })).geometries[0]).toMatchObject({
      kind: 'polygon',
      multi: true,
    });
    expect(errorOf(() => validatePolyAggregate(station({ wkts: `${square(0.5)};${square(0.5, 20)}` })))).toMatchObject({
      code: 'limit_exceeded',
    });
    expect(errorOf(() => validatePolyAggregate(station({ wkts: 'POINT (18 -33)' })))).toMatchObject({
      code: 'invalid_wkt',
    });
  });

  it('rejects fields the endpoint does not take, naming them', () => {
    expect(errorOf(() => validateNearestStation(station({ dataType: 'temp' })))).toMatchObject({
      code: 'unknown_field',
      field: '/dataType',
    });
    expect(
      errorOf(() => validateNearestStation(station({ options: { timeScale: 'daily', dataExtent: 'tc' } }))),
    ).toMatchObject({ code: 'unknown_field', field: '/options/dataExtent' });
  });

  it('rejects bodies that are not objects and names each missing field', () => {
    for (const body of [null, [], 'x', 3])
      expect(errorOf(() => validateNearestStation(body)).code).toBe('invalid_json');
    for (const f of ['wkts', 'dataTypes', 'options', 'startDate', 'endDate']) {
      const b: Record<string, unknown> = station();
      delete b[f];
      expect(errorOf(() => validateNearestStation(b))).toMatchObject({ code: 'missing_field', field: `/${f}` });
    }
  });
});

describe('WKT', () => {
  it('reads numbers as OGC WKT writes them (docs/contract.md): a sign, a bare point, an exponent; nothing else', () => {
    const at = (wkt: string) => validateNearestStation(station({ wkts: wkt })).geometries[0]!;
    for (const [wkt, lon, lat] of [
      ['POINT (+19.3 -33.4)', 19.3, -33.4],
      ['POINT (19. -33.)', 19, -33],
      ['POINT (.5 -.5)', 0.5, -0.5],
      ['POINT (1.93e1 -3.34E+1)', 19.3, -33.4],
    ] as const) {
      expect(JSON.stringify(at(wkt)), wkt).toContain(`${lon},${lat}`);
    }
    for (const bad of [
      'POINT (++19 -33)',
      'POINT (0x13 -33)',
      'POINT (19,5 -33)',
      'POINT (Infinity -33)',
      'POINT (NaN -33)',
      'POINT (19e -33)',
      'POINT (1_9 -33)',
    ]) {
      expect(
        errorOf(() => validateNearestStation(station({ wkts: bad }))),
        bad,
      ).toMatchObject({ code: 'invalid_wkt', field: '/wkts/0', params: { index: 0 } });
    }
  });

  it('names the item and what is wrong, in the message and as data', () => {
    const e = errorOf(() => validateNearestStation(station({ wkts: 'POINT (18 -33); POINT (18 x)' })));
    expect(e).toMatchObject({ code: 'invalid_wkt', field: '/wkts/1', params: { index: 1 } });
    expect(e.message).toContain('item 2');
    expect(e.message.endsWith(` ${String(e.params?.reason)}`)).toBe(true);
    expect(errorOf(() => validateNearestStation(station({ wkts: 'POINT (181 -33)' }))).message).toContain(
      'longitude 181',
    );
    expect(errorOf(() => validateNearestStation(station({ wkts: 'POINT (18 -90.5)' }))).message).toContain(
      'latitude -90.5',
    );
    expect(validateNearestStation(station({ wkts: 'POINT (180 -90);POINT (-180 90)' })).geometries).toHaveLength(2);
    expect(errorOf(() => validateNearestStation(station({ wkts: 'POINT Z (18 -33 5)' }))).message).toContain('Z or M');
    expect(errorOf(() => validateNearestStation(station({ wkts: 'POINT EMPTY' }))).message).toContain('EMPTY');
    expect(errorOf(() => validateNearestStation(station({ wkts: 'LINESTRING (18 -33, 19 -34)' }))).message).toContain(
      'LINESTRING',
    );
    expect(errorOf(() => validateNearestStation(station({ wkts: 'POINT (18 -33);' }))).message).toContain(
      'item 2 is empty',
    );
    expect(
      errorOf(() => validateNearestStation(station({ wkts: 'POINT (18 -33); POINT (18 -33)' }))).message,
    ).toContain('repeats item 1');
  });

  it('keys responses by the trimmed text and accepts lower-case keywords', () => {
    const q = validateNearestStation(station({ wkts: '  point(18.5 -33.5) ;POINT (19 -34)  ' }));
    expect(q.geometries.map((g) => g.key)).toEqual(['point(18.5 -33.5)', 'POINT (19 -34)']);
  });

  it('wants closed rings of at least 4 positions with some area', () => {
    expect(
      errorOf(() => validatePolyAggregate(station({ wkts: 'POLYGON ((18 -34, 19 -34, 19 -33))' }))).message,
    ).toContain('at least 4');
    expect(
      errorOf(() => validatePolyAggregate(station({ wkts: 'POLYGON ((18 -34, 19 -34, 19 -33, 18 -33.5))' }))).message,
    ).toContain('not closed');
    expect(
      errorOf(() => validatePolyAggregate(station({ wkts: 'POLYGON ((18 -34, 19 -34, 20 -34, 18 -34))' }))).message,
    ).toContain('zero area');
    const holeOpen =
      'POLYGON ((18 -34, 19 -34, 19 -33, 18 -33, 18 -34), (18.2 -33.8, 18.4 -33.8, 18.4 -33.6, 18.2 -33.7))';
    expect(errorOf(() => validatePolyAggregate(station({ wkts: holeOpen }))).message).toContain('hole 1');
  });

  it(`caps the vertices of a request at ${MAX_VERTICES}`, () => {
    const ring = (n: number) => {
      const pts = Array.from({ length: n - 1 }, (_, i) => {
        const a = (2 * Math.PI * i) / (n - 1);
        return `${(18.5 + 0.3 * Math.cos(a)).toFixed(6)} ${(-33.5 + 0.3 * Math.sin(a)).toFixed(6)}`;
      });
      return `POLYGON ((${[...pts, pts[0]].join(', ')}))`;
    };
    expect(validatePolyAggregate(station({ wkts: ring(MAX_VERTICES) })).geometries).toHaveLength(1);
    expect(errorOf(() => validatePolyAggregate(station({ wkts: ring(MAX_VERTICES + 1) })))).toMatchObject({
      code: 'limit_exceeded',
      field: '/wkts',
    });
  });
});

describe('raster requests', () => {
  it('accepts each layer family with its options', () => {
    expect(validatePoint(raster()).range?.keys).toHaveLength(31);
    expect(
      validatePoint(
        raster({
          dataType: 'gdd',
          options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc' },
          startDate: '2019',
          endDate: '2024',
        }),
      ).range?.keys,
    ).toEqual(['2019', '2020', '2021', '2022', '2023', '2024']);
    expect(
      validatePoint(
        raster({
          dataType: 'chill',
          options: { subDataType: 'dpcu', timeScale: 'annual', dataExtent: 'tc' },
          startDate: '2024',
          endDate: '2024',
        }),
      ).subDataType,
    ).toBe('dpcu');
    expect(
      validatePoint(
        raster({
          dataType: 'frost',
          options: { timeScale: 'monthly', dataExtent: 'tc' },
          startDate: '2024-05',
          endDate: '2024-08',
        }),
      ).range?.keys,
    ).toEqual(['2024-05-01', '2024-06-01', '2024-07-01', '2024-08-01']);
    expect(
      validatePoint(
        raster({
          dataType: 'frost',
          options: { subDataType: '-', timeScale: 'monthly', dataExtent: 'tc' },
          startDate: '2024-05',
          endDate: '2024-05',
        }),
      ).subDataType,
    ).toBe('-');
    // Rain months wrap across the new year: a summer season.
    expect(
      validatePoint(
        raster({
          dataType: 'rain',
          options: { timeScale: 'calendar_month', dataExtent: 'sa' },
          startDate: '11',
          endDate: '02',
        }),
      ).range?.keys,
    ).toEqual(['--11', '--12', '--01', '--02']);
    expect(
      validatePoint(
        raster({
          dataType: 'rain',
          options: { timeScale: 'calendar_month', dataExtent: 'sa' },
          startDate: '--12',
          endDate: '12',
        }),
      ).range?.keys,
    ).toEqual(['--12']);
    expect(() =>
      validatePoint(
        raster({
          dataType: 'rain',
          options: { timeScale: 'calendar_month', dataExtent: 'sa' },
          startDate: '13',
          endDate: '12',
        }),
      ),
    ).toThrow(/not a month/);
    expect(() =>
      validatePoint(
        raster({
          dataType: 'rain',
          options: { timeScale: 'calendar_month', dataExtent: 'sa' },
          startDate: '6',
          endDate: '12',
        }),
      ),
    ).toThrow(/right format/);
    const wind = validatePoint({
      wkts: 'POINT (20 -30)',
      dataType: 'windspeed',
      options: { subDataType: '100', dataExtent: 'sa' },
    });
    expect(wind.range).toBeNull();
  });

  it('requires subDataType where a family has variants and checks it', () => {
    expect(errorOf(() => validatePoint(raster({ options: { timeScale: 'daily', dataExtent: 'tc' } })))).toMatchObject({
      code: 'missing_field',
      field: '/options/subDataType',
    });
    expect(
      errorOf(() =>
        validatePoint(raster({ options: { subDataType: 'apples', timeScale: 'daily', dataExtent: 'tc' } })),
      ),
    ).toMatchObject({ code: 'invalid_field', field: '/options/subDataType' });
    expect(
      errorOf(() =>
        validatePoint({
          wkts: 'POINT (20 -30)',
          dataType: 'windspeed',
          options: { subDataType: '30', dataExtent: 'sa' },
        }),
      ).field,
    ).toBe('/options/subDataType');
  });

  it('checks extent, time scale and undated layers', () => {
    expect(
      errorOf(() => validatePoint(raster({ options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'sa' } }))),
    ).toMatchObject({ field: '/options/dataExtent' });
    expect(
      errorOf(() => validatePoint(raster({ options: { subDataType: 'mean', timeScale: 'annual', dataExtent: 'tc' } }))),
    ).toMatchObject({ field: '/options/timeScale' });
    expect(errorOf(() => validatePoint(raster({ options: { subDataType: 'mean', dataExtent: 'tc' } })))).toMatchObject({
      code: 'missing_field',
      field: '/options/timeScale',
    });
    const wind = { wkts: 'POINT (20 -30)', dataType: 'windspeed', options: { subDataType: '20', dataExtent: 'sa' } };
    expect(errorOf(() => validatePoint({ ...wind, startDate: '2024-01-01' }))).toMatchObject({
      code: 'unknown_field',
      field: '/startDate',
    });
    expect(errorOf(() => validatePoint({ ...wind, options: { ...wind.options, timeScale: 'daily' } }))).toMatchObject({
      code: 'unknown_field',
      field: '/options/timeScale',
    });
    expect(errorOf(() => validatePoint(raster({ dataType: 'slope' })))).toMatchObject({ field: '/dataType' });
    expect(
      errorOf(() =>
        validatePoint(
          raster({ options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'mean' } }),
        ),
      ),
    ).toMatchObject({ code: 'unknown_field' });
  });

  it('polygon: 1 to 5 polygons, aggregationMethod required, 2 km² per polygon', () => {
    const opts = { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'mean' };
    const five = [0, 1, 2, 3, 4].map((i) => square(0.01, 18.9 + i * 0.02)).join(';');
    expect(validatePolygon(raster({ wkts: five, options: opts })).geometries).toHaveLength(5);
    const six = [0, 1, 2, 3, 4, 5].map((i) => square(0.01, 18.9 + i * 0.02)).join(';');
    expect(errorOf(() => validatePolygon(raster({ wkts: six, options: opts })))).toMatchObject({
      code: 'limit_exceeded',
    });
    expect(
      errorOf(() =>
        validatePolygon(raster({ wkts: square(0.01), options: { ...opts, aggregationMethod: undefined } })),
      ),
    ).toMatchObject({ code: 'missing_field', field: '/options/aggregationMethod' });
    expect(
      errorOf(() => validatePolygon(raster({ wkts: square(0.01), options: { ...opts, aggregationMethod: 'median' } }))),
    ).toMatchObject({ field: '/options/aggregationMethod' });
    for (const m of ['min', 'mean', 'max'])
      expect(
        validatePolygon(raster({ wkts: square(0.01), options: { ...opts, aggregationMethod: m } })).aggregationMethod,
      ).toBe(m);
  });

  it('polygon: the 2 km² limit is geodesic, at the boundary and just past it', async () => {
    const { areaM2 } = await import('../../src/contract/geodesic.ts');
    const opts = { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'max' };
    // Find the side (degrees) of a square at this latitude with an area of exactly 2 km² by bisection.
    let lo = 0.001;
    let hi = 0.03;
    const area = (s: number) =>
      areaM2([
        [
          [
            [18.9, -33.9],
            [18.9 + s, -33.9],
            [18.9 + s, -33.9 + s],
            [18.9, -33.9 + s],
            [18.9, -33.9],
          ],
        ],
      ]);
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (area(mid) > 2e6) hi = mid;
      else lo = mid;
    }
    expect(validatePolygon(raster({ wkts: square(lo * 0.9999), options: opts })).geometries).toHaveLength(1);
    const e = errorOf(() =>
      validatePolygon(raster({ wkts: `${square(0.005, 19.5)};${square(hi * 1.0001)}`, options: opts })),
    );
    expect(e).toMatchObject({
      code: 'polygon_too_large',
      field: '/wkts/1',
      status: 400,
      params: { index: 1, maxKm2: 2 },
    });
    expect(e.params?.areaKm2).toBeGreaterThan(2);
    expect(e.message).toMatch(/item 2 has an area of 2\.00\d km²/);
    // Holes count: a large square with a large hole is small.
    const big =
      'POLYGON ((18.9 -33.9, 18.95 -33.9, 18.95 -33.85, 18.9 -33.85, 18.9 -33.9), (18.9005 -33.8995, 18.9495 -33.8995, 18.9495 -33.8505, 18.9005 -33.8505, 18.9005 -33.8995))';
    expect(validatePolygon(raster({ wkts: big, options: opts })).geometries).toHaveLength(1);
    expect(errorOf(() => validatePolygon(raster({ wkts: 'POINT (18.9 -33.9)', options: opts }))).code).toBe(
      'invalid_wkt',
    );
  });

  it('point takes 1 to 10 points', () => {
    expect(validatePoint(raster({ wkts: points(10) })).geometries).toHaveLength(10);
    expect(errorOf(() => validatePoint(raster({ wkts: points(11) }))).code).toBe('limit_exceeded');
  });
});
