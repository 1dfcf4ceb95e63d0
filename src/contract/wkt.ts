/**
 * The `wkts` field: WGS84 WKT geometries joined by semicolons. Parsing is
 * done by @terraformer/wkt; this module adds the rules the contract needs
 * and the library does not check (2-D only, coordinate ranges, closed rings
 * of at least 4 positions, allowed geometry types, vertex cap) and names the
 * item at fault in every message.
 */
import { wktToGeoJSON } from '@terraformer/wkt';
import { fieldError } from './errors.ts';

/** [longitude, latitude] in degrees. */
export type Position = [number, number];
/** Rings of one polygon: the outer ring first, then holes; each ring closed. */
export type PolygonCoords = Position[][];

/** One parsed item of `wkts`. */
export type ParsedGeometry =
  | { kind: 'point'; key: string; index: number; position: Position }
  | { kind: 'polygon'; key: string; index: number; polygons: PolygonCoords[]; multi: boolean };

/** Most vertices (positions) in all geometries of one request. */
export const MAX_VERTICES = 20_000;

/** Which geometry kinds an endpoint accepts. */
export type GeometryKind = 'point' | 'polygon';

const preview = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/**
 * Splits `wkts` on semicolons and parses each item. Keys are the items'
 * texts trimmed of surrounding whitespace, which is what responses are keyed by.
 */
export function parseWkts(wkts: unknown, kind: GeometryKind, min: number, max: number): ParsedGeometry[] {
  const field = 'wkts';
  if (typeof wkts !== 'string') throw fieldError('invalid_field', field, 'wkts must be a string of WKT texts joined by ";".');
  const items = wkts.split(';').map((s) => s.trim());
  if (items.length === 1 && items[0] === '') throw fieldError('invalid_wkt', field, `wkts is empty; send 1 to ${max} ${kind} WKT text(s).`);
  const emptyAt = items.indexOf('');
  if (emptyAt >= 0) {
    throw fieldError('invalid_wkt', field, `wkts item ${emptyAt + 1} is empty (two ";" in a row, or a leading or trailing ";").`);
  }
  const noun = kind === 'point' ? 'points' : 'polygons';
  if (items.length < min || items.length > max) {
    throw fieldError('limit_exceeded', field, `wkts holds ${items.length} ${noun}; this endpoint takes ${min === max ? `exactly ${min}` : `${min} to ${max}`}.`);
  }
  const seen = new Map<string, number>();
  let vertices = 0;
  return items.map((text, i) => {
    const where = `wkts item ${i + 1} ("${preview(text)}")`;
    const prior = seen.get(text);
    if (prior !== undefined) {
      throw fieldError('invalid_wkt', field, `${where} repeats item ${prior + 1}; responses are keyed by the WKT text, so each must be unique.`);
    }
    seen.set(text, i);
    const g = parseOne(text, where);
    vertices += countVertices(g);
    if (vertices > MAX_VERTICES) {
      throw fieldError('limit_exceeded', field, `wkts holds more than ${MAX_VERTICES} vertices in all; simplify the geometries.`);
    }
    if (g.type === 'Point') {
      if (kind !== 'point') throw fieldError('invalid_wkt', field, `${where} is a POINT; this endpoint takes POLYGON or MULTIPOLYGON.`);
      return { kind: 'point', key: text, index: i, position: checkPosition(g.coordinates, where) };
    }
    if (kind !== 'polygon') throw fieldError('invalid_wkt', field, `${where} is a ${g.type.toUpperCase()}; this endpoint takes POINT.`);
    const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
    if (polygons.length === 0) throw fieldError('invalid_wkt', field, `${where} is empty.`);
    return {
      kind: 'polygon',
      key: text,
      index: i,
      multi: g.type === 'MultiPolygon',
      polygons: polygons.map((rings, p) => checkPolygon(rings, g.type === 'MultiPolygon' ? `${where}, part ${p + 1}` : where)),
    };
  });
}

type Geo =
  | { type: 'Point'; coordinates: unknown }
  | { type: 'Polygon'; coordinates: unknown[][] }
  | { type: 'MultiPolygon'; coordinates: unknown[][][] };

function parseOne(text: string, where: string): Geo {
  // WKT keywords are case-insensitive; the parser only knows upper case.
  const upper = text.replace(/[a-z]+/gi, (w) => (/^e$/i.test(w) ? w : w.toUpperCase()));
  if (/\b(Z|M|ZM)\b/.test(upper)) throw fieldError('invalid_wkt', 'wkts', `${where} has Z or M coordinates; send 2-D WGS84 longitude latitude only.`);
  if (/\bEMPTY\b/.test(upper)) throw fieldError('invalid_wkt', 'wkts', `${where} is EMPTY.`);
  let g: { type: string; coordinates: unknown };
  try {
    g = wktToGeoJSON(upper);
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n').slice(1).join(' ').replace(/\s+/g, ' ').trim() : '';
    throw fieldError('invalid_wkt', 'wkts', `${where} is not valid WKT${detail ? `: ${detail}` : ''}.`);
  }
  if (g.type !== 'Point' && g.type !== 'Polygon' && g.type !== 'MultiPolygon') {
    throw fieldError('invalid_wkt', 'wkts', `${where} is a ${g.type.toUpperCase()}; only POINT, POLYGON and MULTIPOLYGON are accepted.`);
  }
  if (!Array.isArray(g.coordinates) || g.coordinates.length === 0) throw fieldError('invalid_wkt', 'wkts', `${where} is empty.`);
  return g as Geo;
}

function countVertices(g: Geo): number {
  if (g.type === 'Point') return 1;
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  let n = 0;
  for (const rings of polys) for (const ring of rings) n += Array.isArray(ring) ? ring.length : 0;
  return n;
}

function checkPosition(p: unknown, where: string): Position {
  if (!Array.isArray(p) || p.length !== 2 || !p.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw fieldError('invalid_wkt', 'wkts', `${where} has a position that is not two finite numbers "lon lat".`);
  }
  const [lon, lat] = p as [number, number];
  if (lon < -180 || lon > 180) throw fieldError('invalid_wkt', 'wkts', `${where} has longitude ${lon} outside -180..180 (WKT order is "lon lat").`);
  if (lat < -90 || lat > 90) throw fieldError('invalid_wkt', 'wkts', `${where} has latitude ${lat} outside -90..90 (WKT order is "lon lat").`);
  return [lon, lat];
}

function checkPolygon(rings: unknown, where: string): PolygonCoords {
  if (!Array.isArray(rings) || rings.length === 0) throw fieldError('invalid_wkt', 'wkts', `${where} has no rings.`);
  return rings.map((ring: unknown, r) => {
    const label = r === 0 ? `${where}, outer ring` : `${where}, hole ${r}`;
    if (!Array.isArray(ring) || ring.length < 4) {
      throw fieldError('invalid_wkt', 'wkts', `${label} has ${Array.isArray(ring) ? ring.length : 0} positions; a ring needs at least 4 (the last repeating the first).`);
    }
    const pts = ring.map((p) => checkPosition(p, label));
    const [a, b] = [pts[0]!, pts[pts.length - 1]!];
    if (a[0] !== b[0] || a[1] !== b[1]) {
      throw fieldError('invalid_wkt', 'wkts', `${label} is not closed: it starts at ${a[0]} ${a[1]} and ends at ${b[0]} ${b[1]}; repeat the first position at the end.`);
    }
    if (planarRingArea(pts) === 0) throw fieldError('invalid_wkt', 'wkts', `${label} has zero area (its positions are collinear or repeated).`);
    return pts;
  });
}

/** Signed shoelace area in square degrees (positive counter-clockwise). */
export function planarRingArea(ring: readonly Position[]): number {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) s += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return s / 2;
}
