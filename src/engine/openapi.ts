/**
 * The OpenAPI 3.1 description of the four routes, built from the same
 * constants the validators use (endpoints, data-type tables, layer families,
 * limits, error codes), so the document cannot list a name, a limit or a
 * code the validators do not. Its error examples are made by running the
 * validators on bad requests, and test/contract/openapi.int.test.ts runs every
 * example through the validators and the schemas. Served at
 * `GET /api/openapi.json` by `climate-query serve`; a copy is committed as
 * docs/openapi.json (`npm run openapi` rewrites it, a test compares).
 */
import { ERROR_PARAMS, ERROR_STATUS, toClimateQueryError, type ErrorCode } from '../contract/errors.ts';
import { ENDPOINTS, type Endpoint } from '../contract/types.ts';
import { STATION_TIME_SCALES, STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import { stationTypeInfo } from '../contract/station-type-info.ts';
import {
  AGGREGATION_METHODS,
  RASTER_DATA_TYPES,
  RASTER_FAMILIES,
  type RasterDataType,
} from '../contract/raster-layers.ts';
import { MAX_PERIODS, dateFormatOf, type TimeScale } from '../contract/periods.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import { DEFAULT_UTC_OFFSET, utcOffsetLabel } from '../contract/utc-offset.ts';
import { MAX_VERTICES } from '../contract/wkt.ts';
import { LIMITS, VALIDATORS } from '../contract/validate.ts';
import {
  CROP_GDD_BASE,
  INDEX_DEFAULTS,
  MAX_FILL_HOURS,
  MAX_INDEX_DAYS,
  MAX_INDICES,
  STATION_INDEX_NAMES,
} from '../contract/station-indices.ts';
import { MAX_REQUEST_BODY_BYTES } from './router.ts';

type Schema = Record<string, unknown>;

// Each scale's date pattern (the shape only; the validators also check the calendar and the range),
// format and example come from the scales' one description.
const dateSchema = (scale: TimeScale, zone?: string): Schema => ({
  type: 'string',
  pattern: TIME_SCALES[scale].pattern,
  examples: [TIME_SCALES[scale].example],
  description: `${scale} date, ${dateFormatOf(scale)}${zone ? `, in the dataset's local standard time ${utcOffsetLabel(zone)} (all year, no daylight saving); answers key periods in it too` : ''}`,
});

const wktsSchema = (kind: 'point' | 'polygon', max: number): Schema => ({
  type: 'string',
  minLength: 1,
  description:
    kind === 'point'
      ? `1–${max} WGS84 POINT texts ("lon lat") joined by ";". Answers are keyed by each text, trimmed.`
      : `${max === 1 ? 'Exactly one' : `1–${max}`} WGS84 POLYGON or MULTIPOLYGON text${max === 1 ? '' : 's'} joined by ";". At most ${MAX_VERTICES} vertices per request.`,
});

/** One station request schema per time scale, so each lists the data types valid at that scale. */
function stationRequest(endpoint: 'nearest-station' | 'poly-aggregate', zone: string): Schema {
  const kind = endpoint === 'nearest-station' ? 'point' : 'polygon';
  const max = endpoint === 'nearest-station' ? LIMITS.pointsPerQuery : LIMITS.polygonsPerPolyAggregate;
  return {
    oneOf: STATION_TIME_SCALES.map((scale: StationTimeScale) => ({
      title: `${scale} station data`,
      type: 'object',
      additionalProperties: false,
      required: ['wkts', 'dataTypes', 'options', 'startDate', 'endDate'],
      properties: {
        wkts: wktsSchema(kind, max),
        dataTypes: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.dataTypesPerQuery,
          uniqueItems: true,
          // Names with their plain words, unit and step (contract/station-type-info.ts), for people reading the document.
          items: {
            type: 'string',
            enum: [...STATION_TYPES[scale]],
            'x-enum-descriptions': STATION_TYPES[scale].map((t) => typeDescription(scale, t)),
          },
        },
        options: {
          type: 'object',
          additionalProperties: false,
          required: ['timeScale'],
          properties: { timeScale: { const: scale } },
        },
        startDate: dateSchema(scale, zone),
        endDate: dateSchema(scale, zone),
      },
    })),
  };
}

/** "Air temperature, daily maximum (°C, step 0.1)": how the document describes one station data type. */
function typeDescription(scale: StationTimeScale, type: string): string {
  const t = stationTypeInfo(scale, type);
  return `${t.name} (${t.unit}, step ${(10 ** -t.decimals).toFixed(t.decimals)})`;
}

/** One raster request schema per layer family (docs/contract.md, "Raster options"). */
function rasterRequest(endpoint: 'point' | 'polygon'): Schema {
  return {
    oneOf: RASTER_DATA_TYPES.map((dataType: RasterDataType) => {
      const f = RASTER_FAMILIES[dataType];
      const options: Schema = {
        subDataType: { type: 'string', enum: [...f.subTypes] },
        dataExtent: { const: f.extent },
        ...(f.timeScale ? { timeScale: { const: f.timeScale } } : {}),
        ...(endpoint === 'polygon' ? { aggregationMethod: { type: 'string', enum: [...AGGREGATION_METHODS] } } : {}),
      };
      const optionsRequired = [
        ...(f.defaultSubType === null ? ['subDataType'] : []),
        'dataExtent',
        ...(f.timeScale ? ['timeScale'] : []),
        ...(endpoint === 'polygon' ? ['aggregationMethod'] : []),
      ];
      return {
        title: `${dataType}: ${f.title} (${f.unit})`,
        type: 'object',
        additionalProperties: false,
        required: ['wkts', 'dataType', 'options', ...(f.timeScale ? ['startDate', 'endDate'] : [])],
        properties: {
          wkts:
            endpoint === 'point'
              ? wktsSchema('point', LIMITS.pointsPerQuery)
              : wktsSchema('polygon', LIMITS.polygonsPerPolygonQuery),
          dataType: { const: dataType },
          options: { type: 'object', additionalProperties: false, required: optionsRequired, properties: options },
          ...(f.timeScale ? { startDate: dateSchema(f.timeScale), endDate: dateSchema(f.timeScale) } : {}),
        },
      };
    }),
  };
}

const nullableNumber: Schema = { type: ['number', 'null'] };
const periodValues: Schema = {
  type: 'object',
  description: 'Period key (contract 2.3) → data type → value; null where there is no data.',
  additionalProperties: { type: 'object', additionalProperties: nullableNumber },
};

const RESPONSES: Record<Endpoint, Schema> = {
  'nearest-station': {
    type: 'object',
    description: 'Keyed by each point WKT as sent (trimmed), in request order.',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['metadata', 'data'],
      properties: {
        metadata: {
          type: 'object',
          additionalProperties: false,
          required: ['station_lat', 'station_lon', 'station_elevation', 'distance_from_point_m', 'actual_nearest'],
          properties: {
            station_lat: { type: 'number' },
            station_lon: { type: 'number' },
            station_elevation: nullableNumber,
            distance_from_point_m: {
              type: 'number',
              minimum: 0,
              description: 'Geodesic distance on WGS84, rounded to the millimetre.',
            },
            actual_nearest: {
              type: 'boolean',
              description: 'false only when a strictly closer station without data was passed over.',
            },
          },
        },
        data: periodValues,
      },
    },
  },
  'poly-aggregate': {
    type: 'object',
    additionalProperties: false,
    required: ['stations_metadata', 'aggregated_data'],
    properties: {
      stations_metadata: {
        type: 'object',
        description: 'Keyed "0", "1", … in ascending station id order.',
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['station_lat', 'station_lon', 'station_elevation'],
          properties: {
            station_lat: { type: 'number' },
            station_lon: { type: 'number' },
            station_elevation: nullableNumber,
          },
        },
      },
      aggregated_data: {
        ...periodValues,
        description: 'Period → mean of each type over the stations with a value, and <type>_station_count.',
      },
    },
  },
  point: rasterResponse(),
  polygon: rasterResponse(),
  'station-indices': stationIndicesResponse(),
};

/** The extension's answer: per point (keyed by WKT) station metadata and indices, or for one polygon the stations and mean indices. */
function stationIndicesResponse(): Schema {
  const count = { type: 'integer', minimum: 0 };
  const period: Schema = {
    type: 'object',
    additionalProperties: false,
    required: ['value', 'hours_expected', 'hours_used', 'hours_missing', 'hours_filled'],
    properties: {
      value: {
        ...nullableNumber,
        description: 'The index over the period; null when too few hours are known (see reason).',
      },
      reason: { type: 'string', description: 'Why value is null.' },
      hours_expected: count,
      hours_used: { ...count, description: 'Hours with a temperature, measured, filled or reconstructed.' },
      hours_missing: count,
      hours_filled: {
        ...count,
        description: 'Hours filled by linear interpolation across a short gap (options.maxGapHours).',
      },
      months: {
        type: 'object',
        description: 'Frost indices: the value per month (yyyy-mm).',
        additionalProperties: nullableNumber,
      },
      station_count: { ...count, description: 'Polygons: stations whose value is in the mean.' },
    },
  };
  const indices: Schema = {
    type: 'object',
    description: 'Index name → unit and periods ("yyyy-mm-dd/yyyy-mm-dd": the window, or each season inside it).',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['unit', 'periods'],
      properties: { unit: { type: 'string' }, periods: { type: 'object', additionalProperties: period } },
    },
  };
  const hoursFrom = {
    enum: ['hourly', 'daily'],
    description: 'hourly: measured hours; daily: hours reconstructed from daily minimum and maximum (docs/indices.md).',
  };
  const points: Schema = {
    type: 'object',
    description: 'Points: keyed by each point WKT as sent (trimmed).',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['metadata', 'indices'],
      properties: {
        metadata: {
          type: 'object',
          additionalProperties: false,
          required: [
            'station_lat',
            'station_lon',
            'station_elevation',
            'distance_from_point_m',
            'actual_nearest',
            'hours_from',
          ],
          properties: {
            station_lat: { type: 'number' },
            station_lon: { type: 'number' },
            station_elevation: nullableNumber,
            distance_from_point_m: { type: 'number', minimum: 0 },
            actual_nearest: { type: 'boolean' },
            hours_from: {
              ...hoursFrom,
              enum: ['hourly', 'daily', null],
              description: `${hoursFrom.description} null when no station has temperatures in the window.`,
            },
          },
        },
        indices,
      },
    },
  };
  const polygon: Schema = {
    type: 'object',
    additionalProperties: false,
    required: ['stations_metadata', 'indices'],
    properties: {
      stations_metadata: {
        type: 'object',
        description: 'The stations inside with temperatures, keyed "0", "1", … in ascending station id order.',
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['station_lat', 'station_lon', 'station_elevation', 'hours_from'],
          properties: {
            station_lat: { type: 'number' },
            station_lon: { type: 'number' },
            station_elevation: nullableNumber,
            hours_from: hoursFrom,
          },
        },
      },
      indices,
    },
  };
  return { oneOf: [polygon, { ...points, not: { required: ['stations_metadata', 'indices'] } }] };
}

/** The extension's request (docs/indices.md). */
function stationIndicesRequest(utcOffset: string): Schema {
  const season = (d: string) => ({
    type: 'string',
    pattern: '^\\d{2}-\\d{2}/\\d{2}-\\d{2}$',
    description: `mm-dd/mm-dd; default "${d}". An end before the start wraps into the next year.`,
  });
  const date = {
    type: 'string',
    format: 'date',
    description: `yyyy-mm-dd, inclusive, local standard time (UTC${utcOffset}).`,
  };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['wkts', 'indices', 'startDate', 'endDate'],
    properties: {
      wkts: {
        type: 'string',
        description: `1 to ${LIMITS.pointsPerQuery} POINTs joined by ";" (each: the nearest station with temperatures), or one POLYGON (the stations inside, averaged).`,
      },
      indices: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_INDICES,
        uniqueItems: true,
        items: { enum: STATION_INDEX_NAMES },
      },
      startDate: date,
      endDate: { ...date, description: `${date.description} At most ${MAX_INDEX_DAYS} days after startDate.` },
      options: {
        type: 'object',
        additionalProperties: false,
        properties: {
          by: {
            enum: ['window', 'season'],
            description:
              'window (default): one value over startDate–endDate; season: one per season overlapping it, clipped to it.',
          },
          chillSeason: season(INDEX_DEFAULTS.chillSeason),
          heatSeason: season(INDEX_DEFAULTS.heatSeason),
          frostSeason: season(INDEX_DEFAULTS.frostSeason),
          crop: {
            enum: Object.keys(CROP_GDD_BASE),
            description: `Sets gddBase: ${Object.entries(CROP_GDD_BASE)
              .map(([c, b]) => `${c} ${b} °C`)
              .join(', ')}.`,
          },
          gddBase: {
            type: 'number',
            minimum: -10,
            maximum: 30,
            description: `Base of gdd, °C; default ${INDEX_DEFAULTS.gddBase}.`,
          },
          maxGapHours: {
            type: 'integer',
            minimum: 0,
            maximum: MAX_FILL_HOURS,
            description: `Longest gap filled by linear interpolation; default ${INDEX_DEFAULTS.maxGapHours}.`,
          },
          minCompleteness: {
            type: 'number',
            minimum: 0.5,
            maximum: 1,
            description: `Share of a period's hours that must be known for a value; default ${INDEX_DEFAULTS.minCompleteness}.`,
          },
        },
      },
    },
  };
}

function rasterResponse(): Schema {
  return {
    type: 'object',
    description:
      'Keyed by each WKT as sent (trimmed): period key → value for dated layers, the value itself for undated ones (windspeed). null outside the grid or on no-data.',
    additionalProperties: { oneOf: [nullableNumber, { type: 'object', additionalProperties: nullableNumber }] },
  };
}

/** A working request per endpoint: the examples of the document (answerable on the demo dataset). */
export const REQUEST_EXAMPLES: Record<Endpoint, Record<string, { summary: string; value: Record<string, unknown> }>> = {
  'nearest-station': {
    daily: {
      summary: 'Daily rain and maximum temperature at two points',
      value: {
        wkts: 'POINT (19.31 -33.37);POINT (18.86 -33.93)',
        dataTypes: ['rain_sum', 'temperature_max'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-03',
      },
    },
    hourly: {
      summary: 'Hourly temperature at one point',
      value: {
        wkts: 'POINT (19.31 -33.37)',
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'hourly' },
        startDate: '2024-01-01T00:00:00',
        endDate: '2024-01-01T02:00:00',
      },
    },
  },
  'poly-aggregate': {
    monthly: {
      summary: 'Monthly rain averaged over the stations in a polygon',
      value: {
        wkts: 'POLYGON ((18.5 -34.2, 19.5 -34.2, 19.5 -33.2, 18.5 -33.2, 18.5 -34.2))',
        dataTypes: ['rain_sum'],
        options: { timeScale: 'monthly' },
        startDate: '2024-01',
        endDate: '2024-03',
      },
    },
  },
  point: {
    temp: {
      summary: 'Daily maximum temperature at a point',
      value: {
        wkts: 'POINT (19.31 -33.37)',
        dataType: 'temp',
        options: { subDataType: 'max', timeScale: 'daily', dataExtent: 'tc' },
        startDate: '2024-01-01',
        endDate: '2024-01-03',
      },
    },
    rain: {
      summary: 'Median rain of the summer months (the range wraps over the new year)',
      value: {
        wkts: 'POINT (19.31 -33.37)',
        dataType: 'rain',
        options: { timeScale: 'calendar_month', dataExtent: 'sa' },
        startDate: '11',
        endDate: '02',
      },
    },
    windspeed: {
      summary: 'Wind speed at 50 m (an undated layer: no dates, no timeScale)',
      value: {
        wkts: 'POINT (19.31 -33.37);POINT (10 -33)',
        dataType: 'windspeed',
        options: { subDataType: '50', dataExtent: 'sa' },
      },
    },
  },
  'station-indices': {
    chill: {
      summary: 'Chill portions and daily positive Utah chill units of each winter at a point',
      value: {
        wkts: 'POINT (19.31 -33.37)',
        indices: ['chill_portions', 'dpcu'],
        startDate: '2023-04-01',
        endDate: '2024-08-31',
        options: { by: 'season' },
      },
    },
    heat: {
      summary: 'Growing degree days for apples and frost over a window, averaged over a farm',
      value: {
        wkts: 'POLYGON ((18.5 -34.2, 19.5 -34.2, 19.5 -33.2, 18.5 -33.2, 18.5 -34.2))',
        indices: ['gdd', 'frost_hours'],
        startDate: '2024-01-01',
        endDate: '2024-03-31',
        options: { crop: 'apples' },
      },
    },
  },
  polygon: {
    gdd: {
      summary: 'Mean growing degree days for citrus over a field',
      value: {
        wkts: 'POLYGON ((19.0312 -34.1501, 19.0398 -34.1501, 19.0398 -34.1442, 19.0312 -34.1442, 19.0312 -34.1501))',
        dataType: 'gdd',
        options: { subDataType: 'citrus', timeScale: 'annual', dataExtent: 'tc', aggregationMethod: 'mean' },
        startDate: '2023',
        endDate: '2024',
      },
    },
  },
};

/** Answers in the documented shapes (values illustrative; the schemas are checked against real answers in tests). */
const RESPONSE_EXAMPLES: Record<Endpoint, unknown> = {
  'nearest-station': {
    'POINT (19.31 -33.37)': {
      metadata: {
        station_lat: -33.29,
        station_lon: 19.14,
        station_elevation: 160,
        distance_from_point_m: 18433.052,
        actual_nearest: true,
      },
      data: {
        '2024-01-01': { rain_sum: 0, temperature_max: 29.4 },
        '2024-01-02': { rain_sum: 1.2, temperature_max: null },
      },
    },
  },
  'poly-aggregate': {
    stations_metadata: { '0': { station_lat: -33.93, station_lon: 18.86, station_elevation: 119 } },
    aggregated_data: {
      '2024-01-01': { rain_sum: 12.5, rain_sum_station_count: 1 },
      '2024-02-01': { rain_sum: null, rain_sum_station_count: 0 },
    },
  },
  point: { 'POINT (19.31 -33.37)': { '2024-01-01': 27.8, '2024-01-02': 30.1 }, 'POINT (10 -33)': null },
  polygon: {
    'POLYGON ((19.0312 -34.1501, 19.0398 -34.1501, 19.0398 -34.1442, 19.0312 -34.1442, 19.0312 -34.1501))': {
      '2023': 1850.5,
      '2024': 1912.25,
    },
  },
  'station-indices': {
    'POINT (19.31 -33.37)': {
      metadata: {
        station_lat: -33.29,
        station_lon: 19.14,
        station_elevation: 160,
        distance_from_point_m: 18433.052,
        actual_nearest: true,
        hours_from: 'hourly',
      },
      indices: {
        chill_portions: {
          unit: 'chill portions',
          periods: {
            '2023-04-01/2023-08-31': {
              value: 58.4127,
              hours_expected: 3672,
              hours_used: 3660,
              hours_missing: 12,
              hours_filled: 5,
            },
            '2024-04-01/2024-08-31': {
              value: null,
              reason:
                'Only 2904 of 3672 hours (79 %) have a temperature; an answer needs 90 % (options.minCompleteness).',
              hours_expected: 3672,
              hours_used: 2904,
              hours_missing: 768,
              hours_filled: 0,
            },
          },
        },
      },
    },
  },
};

/**
 * A bad request per input error code, each sent to the endpoint named. The
 * document's error examples are the validators' answers to these.
 */
export const ERROR_REQUESTS: Partial<Record<ErrorCode, { endpoint: Endpoint; body: unknown }>> = {
  invalid_json: { endpoint: 'point', body: ['not', 'an', 'object'] },
  missing_field: {
    endpoint: 'nearest-station',
    body: { wkts: 'POINT (19 -33)', options: { timeScale: 'daily' }, startDate: '2024-01-01', endDate: '2024-01-02' },
  },
  invalid_field: {
    endpoint: 'nearest-station',
    body: {
      wkts: 'POINT (19 -33)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'weekly' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    },
  },
  unknown_field: {
    endpoint: 'nearest-station',
    body: {
      wkts: 'POINT (19 -33)',
      dataType: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    },
  },
  unknown_data_type: {
    endpoint: 'nearest-station',
    body: {
      wkts: 'POINT (19 -33)',
      dataTypes: ['rain'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    },
  },
  invalid_wkt: { endpoint: 'point', body: { ...REQUEST_EXAMPLES.point.temp!.value, wkts: 'POINT (19 -33' } },
  limit_exceeded: {
    endpoint: 'point',
    body: {
      ...REQUEST_EXAMPLES.point.temp!.value,
      wkts: Array.from({ length: LIMITS.pointsPerQuery + 1 }, (_, i) => `POINT (19.${i} -33)`).join(';'),
    },
  },
  invalid_date: {
    endpoint: 'nearest-station',
    body: {
      wkts: 'POINT (19 -33)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2023-02-29',
      endDate: '2023-03-01',
    },
  },
  invalid_date_range: {
    endpoint: 'nearest-station',
    body: {
      wkts: 'POINT (19 -33)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-02-01',
      endDate: '2024-01-01',
    },
  },
  too_many_periods: {
    endpoint: 'nearest-station',
    body: {
      wkts: 'POINT (19 -33)',
      dataTypes: ['rain'],
      options: { timeScale: 'hourly' },
      startDate: '2020-01-01T00:00:00',
      endDate: '2024-12-31T23:00:00',
    },
  },
  polygon_too_large: {
    endpoint: 'polygon',
    body: {
      ...REQUEST_EXAMPLES.polygon.gdd!.value,
      wkts: 'POLYGON ((19.0 -34.2, 19.05 -34.2, 19.05 -34.15, 19.0 -34.15, 19.0 -34.2))',
    },
  },
};

/** Errors no request body causes, with the message the adapters give (shape only). */
const OTHER_ERROR_EXAMPLES: Partial<Record<ErrorCode, string>> = {
  body_too_large: `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`,
  not_found:
    'No endpoint at /api/points/. Endpoints: /api/nearest-station/, /api/poly-aggregate/, /api/point/, /api/polygon/ (with the trailing slash).',
  method_not_allowed: '/api/point/ answers POST only; got GET.',
  aborted: 'The request was aborted.',
  dataset_unavailable:
    'The dataset is unavailable: catalog.json could not be read at ./data/demo/catalog.json. Run `climate-query demo`, or pass --data DIR|URL.',
  engine_unavailable: 'No page of this site is open to answer; open the app once, then retry.',
  internal: 'Internal error: (a bug: please report it with the request).',
};

/** The error body for `code`: the validators' own answer for input codes. */
function errorExample(code: ErrorCode): unknown {
  const bad = ERROR_REQUESTS[code];
  if (bad) {
    try {
      VALIDATORS[bad.endpoint](bad.body);
    } catch (err) {
      return toClimateQueryError(err).toBody();
    }
    throw new Error(`ERROR_REQUESTS.${code} passed validation; it must not.`);
  }
  return { error: { code, message: OTHER_ERROR_EXAMPLES[code] ?? code } };
}

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Each code's params in one line: "invalid_wkt: index (…), reason (…); …". */
function paramsText(): string {
  return Object.entries(ERROR_PARAMS)
    .map(
      ([code, params]) =>
        `${code}: ${Object.entries(params)
          .map(([name, meaning]) => `${name} (${meaning})`)
          .join(', ')}`,
    )
    .join('; ');
}

/** The codes each endpoint can answer with `status`. */
function codesWithStatus(status: number): ErrorCode[] {
  return ERROR_CODES.filter(
    (c) => ERROR_STATUS[c] === status && c !== 'not_found' && c !== 'method_not_allowed' && c !== 'engine_unavailable',
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid; `field` points at the value at fault, `params` say what was allowed and sent, and `message` how to fix it.',
  404: 'No endpoint at this path (the trailing slash is required).',
  405: 'The endpoint answers POST only.',
  413: `The body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`,
  499: 'The caller aborted the request (no response reaches it; listed for completeness of the codes).',
  500: 'A bug: never caused by input.',
  503: 'The dataset is missing or unreadable, or (service worker) no page is open to run the engine.',
};

function errorResponse(codes: ErrorCode[], status: number): Schema {
  return {
    description: STATUS_TEXT[status] ?? 'Error',
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            { properties: { error: { properties: { code: { enum: codes } } } } },
          ],
        },
        examples: Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
      },
    },
  };
}

function operation(endpoint: Endpoint): Schema {
  const station = endpoint === 'nearest-station' || endpoint === 'poly-aggregate' || endpoint === 'station-indices';
  const statuses = [...new Set(ERROR_CODES.map((c) => ERROR_STATUS[c]))].sort((a, b) => a - b);
  const summaries: Record<Endpoint, string> = {
    'nearest-station': 'Station records of the nearest station with data, per point',
    'poly-aggregate': 'Station records averaged over the stations inside a polygon',
    point: 'Climate-layer values at points',
    polygon: 'Climate-layer values aggregated over polygons (each ≤ 2 km²)',
    'station-indices': 'Extension: chill and heat indices from station temperatures (docs/indices.md)',
  };
  return {
    post: {
      operationId: endpoint.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
      summary: summaries[endpoint],
      tags: [station ? 'stations' : 'climate layers'],
      requestBody: {
        required: true,
        description: `JSON, at most ${MAX_REQUEST_BODY_BYTES} bytes. Unknown fields are rejected (unknown_field). At most ${MAX_PERIODS} periods per request.`,
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${schemaName(endpoint)}Request` },
            examples: REQUEST_EXAMPLES[endpoint],
          },
        },
      },
      responses: {
        '200': {
          description: 'The answer (contract 2.6). Values are numbers or null; missing data is null, never 0.',
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${schemaName(endpoint)}Response` },
              example: RESPONSE_EXAMPLES[endpoint],
            },
          },
        },
        ...Object.fromEntries(
          statuses
            .map(
              (s) =>
                [
                  s,
                  s === 404
                    ? ['not_found' as ErrorCode]
                    : s === 405
                      ? ['method_not_allowed' as ErrorCode]
                      : s === 503
                        ? [...codesWithStatus(s), 'engine_unavailable' as ErrorCode]
                        : codesWithStatus(s),
                ] as const,
            )
            .filter(([, codes]) => codes.length > 0)
            .map(([s, codes]) => [String(s), errorResponse(codes, s)]),
        ),
      },
    },
  };
}

function schemaName(endpoint: Endpoint): string {
  return endpoint
    .split('-')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/**
 * Builds the OpenAPI 3.1 document. `version` is the package version; `utcOffset` the zone the
 * dataset's station times are in (its catalog's, "+02:00" by default), stated on every station date.
 */
export function openApiDocument(version: string, utcOffset: string = DEFAULT_UTC_OFFSET): Record<string, unknown> {
  const schemas: Record<string, Schema> = {
    Error: {
      type: 'object',
      additionalProperties: false,
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: {
            code: {
              type: 'string',
              enum: ERROR_CODES,
              description: 'Stable; never renamed (docs/contract.md, "Errors").',
            },
            message: { type: 'string', description: 'What was wrong and, where possible, how to fix it.' },
            field: {
              type: 'string',
              description:
                'The value at fault as a JSON pointer (RFC 6901) into the request body, e.g. /options/timeScale, /dataTypes/2; an item of wkts is /wkts/<index from 0>, as if the text were split on ";".',
            },
            params: {
              type: 'object',
              description: `The values the error is about, so that a client writes its own words without reading the message. By code: ${paramsText()}`,
              additionalProperties: {
                anyOf: [
                  { type: 'string' },
                  { type: 'number' },
                  { type: 'boolean' },
                  { type: 'array', items: { type: 'string' } },
                ],
              },
            },
          },
        },
      },
    },
  };
  for (const e of ENDPOINTS) {
    schemas[`${schemaName(e)}Request`] =
      e === 'point' || e === 'polygon'
        ? rasterRequest(e)
        : e === 'station-indices'
          ? stationIndicesRequest(utcOffset)
          : stationRequest(e, utcOffset);
    schemas[`${schemaName(e)}Response`] = RESPONSES[e];
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'climate-query',
      version,
      summary: 'Four POST routes over a static climate dataset: weather-station records and gridded climate layers.',
      description:
        'Answered by `climate-query serve`, by the service worker of a site that uses the library, or in-process by `handle()`. ' +
        'Rules and decisions: docs/contract.md. Every error is `{"error":{"code","message","field"?,"params"?}}` with a stable code; `field` is a JSON pointer into the request.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'Where the site or `climate-query serve` runs' }],
    paths: Object.fromEntries(ENDPOINTS.map((e) => [`/api/${e}/`, operation(e)])),
    components: {
      schemas,
      examples: Object.fromEntries(
        ERROR_CODES.map((c) => [c, { summary: `${ERROR_STATUS[c]} ${c}`, value: errorExample(c) }]),
      ),
    },
    'x-limits': {
      pointsPerQuery: LIMITS.pointsPerQuery,
      dataTypesPerQuery: LIMITS.dataTypesPerQuery,
      polygonsPerPolyAggregate: LIMITS.polygonsPerPolyAggregate,
      polygonsPerPolygonQuery: LIMITS.polygonsPerPolygonQuery,
      polygonAreaM2: LIMITS.polygonAreaM2,
      verticesPerRequest: MAX_VERTICES,
      periodsPerRequest: MAX_PERIODS,
      bodyBytes: MAX_REQUEST_BODY_BYTES,
    },
  };
}
