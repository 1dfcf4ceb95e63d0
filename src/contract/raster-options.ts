/**
 * The raster-layer part of /api/point/ and /api/polygon/ requests:
 * dataType, options.subDataType, options.dataExtent, options.timeScale,
 * startDate and endDate, checked against the layers a dataset declares.
 *
 * Two steps, both pure: {@link checkRasterShape} needs no dataset (fields,
 * their types) and runs before the engine loads anything;
 * {@link resolveRasterOptions} takes the dataset's layer declarations (the
 * engine passes catalog.json's `rasters`) and answers 400s that name the
 * field and list what this dataset holds. Which dates a layer holds is
 * checked later, by the read plan (src/rasters/layer-plan.ts), which has
 * the layer's files.
 */
import { fieldError } from './errors.ts';
import { isObject, list, oneOf, rejectUnknown, requireField, type Json } from './fields.ts';
import { quote } from './quote.ts';
import { parseRange, type PeriodRange } from './periods.ts';
import type { RasterLayerDeclaration } from './raster-layers.ts';

const unique = (xs: readonly string[]) => [...new Set(xs)];

/** Every top-level field a raster request may have (dated layers take all five). */
const BODY_FIELDS = ['wkts', 'dataType', 'options', 'startDate', 'endDate'] as const;
/** Top-level fields of a request for an undated layer. */
const UNDATED_BODY_FIELDS = ['wkts', 'dataType', 'options'] as const;

function optionFields(endpoint: 'point' | 'polygon', dated: boolean): string[] {
  return [
    'subDataType',
    'dataExtent',
    ...(dated ? ['timeScale'] : []),
    ...(endpoint === 'polygon' ? ['aggregationMethod'] : []),
  ];
}

/**
 * What needs no dataset: the body is an object with only raster-request
 * fields, `dataType` is a string, `options` an object with only option
 * fields of this endpoint. Throws a 400 naming the field.
 */
export function checkRasterShape(body: unknown, endpoint: 'point' | 'polygon'): void {
  if (!isObject(body)) return; // The validator answers invalid_json for this.
  rejectUnknown(body, BODY_FIELDS, '');
  const dataType = requireField(body, 'dataType');
  if (typeof dataType !== 'string')
    throw fieldError(
      'invalid_field',
      'dataType',
      `dataType must be a string naming a raster layer; got ${quote(dataType)}.`,
    );
  const opts = requireField(body, 'options');
  if (!isObject(opts)) throw fieldError('invalid_field', 'options', 'options must be a JSON object.');
  rejectUnknown(opts, optionFields(endpoint, true), 'options.');
}

/** The layer a request names and the periods it asks for. */
export interface ResolvedRasterOptions {
  layer: RasterLayerDeclaration;
  dataType: string;
  subDataType: string;
  extent: string;
  /** Null for undated layers. */
  range: PeriodRange | null;
  /** The validated options object (aggregationMethod is the caller's to check). */
  options: Json;
}

/**
 * Finds the layer `body` names among `layers` (a dataset's declarations)
 * and parses its dates on the layer's time scale. Throws a 400 naming the
 * field and listing what the dataset holds: an unknown dataType,
 * subDataType, dataExtent or timeScale, a field the layer does not take
 * (dates of an undated layer), a missing or malformed date. A
 * calendar-month layer asked without dates (and without timeScale) answers
 * all 12 months.
 */
export function resolveRasterOptions(
  body: Json,
  endpoint: 'point' | 'polygon',
  layers: readonly RasterLayerDeclaration[],
): ResolvedRasterOptions {
  const dataTypes = unique(layers.map((l) => l.dataType));
  const dataType = requireField(body, 'dataType');
  if (typeof dataType !== 'string' || !dataTypes.includes(dataType)) {
    const have = dataTypes.length
      ? `one of ${list(dataTypes)} (the raster layers of this dataset)`
      : 'a raster layer, but this dataset has none';
    throw fieldError('invalid_field', 'dataType', `dataType must be ${have}; got ${quote(dataType)}.`);
  }
  const ofType = layers.filter((l) => l.dataType === dataType);
  const anyDated = ofType.some((l) => l.timeScale !== null);
  rejectUnknown(
    body,
    anyDated ? BODY_FIELDS : UNDATED_BODY_FIELDS,
    '',
    anyDated ? '' : ` for the undated ${dataType} layers`,
  );
  const opts = requireField(body, 'options');
  if (!isObject(opts)) throw fieldError('invalid_field', 'options', 'options must be a JSON object.');
  rejectUnknown(
    opts,
    optionFields(endpoint, anyDated),
    'options.',
    anyDated ? '' : ` for the undated ${dataType} layers`,
  );

  const subTypes = unique(ofType.map((l) => l.subDataType));
  let subDataType: string;
  if (opts.subDataType === undefined) {
    const fallback = ofType.find((l) => l.isDefault);
    if (!fallback) {
      throw fieldError(
        'missing_field',
        'options.subDataType',
        `options.subDataType is required for ${dataType}: one of ${list(subTypes)}.`,
      );
    }
    subDataType = fallback.subDataType;
  } else {
    subDataType = oneOf(opts.subDataType, subTypes, 'options.subDataType', ` for ${dataType}`);
  }
  const ofSub = ofType.filter((l) => l.subDataType === subDataType);
  const extent = oneOf(
    requireField(opts, 'dataExtent', 'options.'),
    unique(layers.map((l) => l.extent)),
    'options.dataExtent',
    ' (the extents of this dataset)',
  );
  const layer = ofSub.find((l) => l.extent === extent);
  const name = subTypes.length === 1 ? dataType : `${dataType} "${subDataType}"`;
  if (!layer) {
    const where = unique(ofSub.map((l) => l.extent));
    throw fieldError(
      'invalid_field',
      'options.dataExtent',
      `${name} layers exist only for dataExtent ${list(where)}; got "${extent}".`,
    );
  }

  let range: PeriodRange | null = null;
  if (layer.timeScale === null) {
    // Only reachable when the same name is dated at another extent or sub-type.
    for (const f of ['startDate', 'endDate'] as const) {
      if (body[f] !== undefined)
        throw fieldError('unknown_field', f, `${f} is not a field for ${name} at "${extent}": that layer is undated.`);
    }
    if (opts.timeScale !== undefined)
      throw fieldError(
        'unknown_field',
        'options.timeScale',
        `options.timeScale is not a field for ${name} at "${extent}": that layer is undated.`,
      );
  } else if (
    layer.timeScale === 'calendar_month' &&
    opts.timeScale === undefined &&
    body.startDate === undefined &&
    body.endDate === undefined
  ) {
    // A long-term monthly layer asked without dates: all twelve months.
    range = parseRange('calendar_month', '01', '12');
  } else {
    oneOf(requireField(opts, 'timeScale', 'options.'), [layer.timeScale], 'options.timeScale', ` for ${name}`);
    if (layer.timeScale === 'calendar_month' && body.startDate === undefined && body.endDate === undefined) {
      range = parseRange('calendar_month', '01', '12');
    } else {
      range = parseRange(layer.timeScale, requireField(body, 'startDate'), requireField(body, 'endDate'));
    }
  }
  return { layer, dataType, subDataType, extent, range, options: opts };
}
