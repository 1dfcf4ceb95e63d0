/**
 * Shapes typed or pasted as text: WKT (as the API takes it) or GeoJSON (as
 * farm-management tools and GIS export field boundaries). The way to add a
 * field without a pointer, and to bring in boundaries drawn elsewhere.
 * Every shape goes through the contract's own WKT reader, so what is
 * accepted here is exactly what the endpoints accept.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { MAX_VERTICES, parseWkts, type Position } from '../contract/wkt.ts';
import type { DrawnGeometry } from './query-request.ts';
import { itemWords } from './words.ts';

/** Most shapes taken from one paste (the endpoints' own limit per request is larger). */
export const MAX_PASTED_SHAPES = 50;

/** The shapes read from `text`, or a sentence saying what could not be read. */
export function readShapeText(text: string, idPrefix = 'typed'): { geometries: DrawnGeometry[] } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed)
    return {
      error:
        'Type or paste a shape first: a WKT text such as POLYGON ((19.03 -34.15, 19.04 -34.15, 19.04 -34.14, 19.03 -34.15)), or GeoJSON.',
    };
  let items: Array<{ wkt: string; name?: string }>;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const fromJson = geoJsonToWkts(trimmed);
    if ('error' in fromJson) return fromJson;
    items = fromJson.items;
  } else {
    items = splitWkts(trimmed).flatMap((wkt) => multiPointAsPoints(wkt).map((w) => ({ wkt: w })));
  }
  const tooMany = (n: number) => ({
    error: `That is ${n} shapes (each part of a multi-polygon counts); add at most ${MAX_PASTED_SHAPES} at a time.`,
  });
  if (items.length > MAX_PASTED_SHAPES) return tooMany(items.length);
  const geometries: DrawnGeometry[] = [];
  let vertices = 0;
  for (const [i, { wkt, name }] of items.entries()) {
    const kind = /^\s*point\b/i.test(wkt) ? 'point' : 'polygon';
    try {
      const [g] = parseWkts(wkt, kind, 1, 1);
      if (!g) continue;
      if (g.kind === 'point')
        geometries.push({ id: `${idPrefix}-${i}`, kind: 'point', coordinates: g.position, ...(name ? { name } : {}) });
      // A MULTIPOLYGON becomes one field per part: the map draws and edits single polygons.
      else {
        g.polygons.forEach((rings, p) => {
          const partName = name && g.polygons.length > 1 ? `${name}, part ${p + 1}` : name;
          geometries.push({
            id: `${idPrefix}-${i}-${p}`,
            kind: 'polygon',
            coordinates: rings,
            ...(partName ? { name: partName } : {}),
          });
        });
      }
      vertices +=
        g.kind === 'point' ? 1 : g.polygons.reduce((n, rings) => n + rings.reduce((m, r) => m + r.length, 0), 0);
    } catch (err) {
      // The contract's error names its item by index and reason: here the item is the shape's place in the paste.
      if (err instanceof ClimateQueryError && err.params?.reason !== undefined)
        return { error: itemWords(`Shape ${i + 1}`, err.params) };
      if (err instanceof ClimateQueryError) return { error: err.message };
      return { error: `Shape ${i + 1} could not be read (${String(err)}).` };
    }
  }
  if (geometries.length > MAX_PASTED_SHAPES) return tooMany(geometries.length);
  // One query takes at most this many vertices in all (docs/contract.md): say so now, not on Run.
  if (vertices > MAX_VERTICES)
    return {
      error: `These shapes have ${vertices} vertices; a query takes at most ${MAX_VERTICES} in all. Simplify the boundaries (in QGIS: Vector › Geometry Tools › Simplify).`,
    };
  return { geometries };
}

/**
 * A WKT MULTIPOINT as one POINT per member (the API takes points one by one;
 * GeoJSON MultiPoints are split the same way); any other text as it is.
 * Both member forms are read: `MULTIPOINT ((19 -34), (20 -33))` and `MULTIPOINT (19 -34, 20 -33)`.
 */
function multiPointAsPoints(wkt: string): string[] {
  const m = /^\s*multipoint\s*\(([\s\S]*)\)\s*$/i.exec(wkt);
  if (!m) return [wkt];
  const members = m[1]!.split(',').map((x) => x.replace(/[()]/g, '').trim());
  return members.every((x) => x !== '') ? members.map((x) => `POINT (${x})`) : [wkt];
}

/** WKT items split on ";" and on line breaks between shapes; a line break inside a shape's parentheses is kept (WKT wrapped over lines). */
function splitWkts(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (i === text.length || c === ';' || (c === '\n' && depth === 0)) {
      const item = text.slice(start, i).replace(/\s+/g, ' ').trim();
      if (item) items.push(item);
      start = i + 1;
    }
  }
  return items;
}

type Json = unknown;
const isPos = (p: Json): p is number[] => Array.isArray(p) && p.length >= 2 && p.every((x) => typeof x === 'number');
const pos = (p: Json): string => {
  if (!isPos(p)) throw new Error('a position is not a list of two numbers [longitude, latitude]');
  return `${p[0]} ${p[1]}`;
};
const ring = (r: Json): string => {
  if (!Array.isArray(r)) throw new Error('a ring is not a list of positions');
  return `(${r.map(pos).join(', ')})`;
};
const polygon = (rings: Json): string => {
  if (!Array.isArray(rings)) throw new Error('polygon coordinates are not a list of rings');
  return `(${rings.map(ring).join(', ')})`;
};

/** Feature properties that name a field or block in the exports of farm tools and GIS. */
const NAME_KEYS = ['name', 'Name', 'NAME', 'title', 'label', 'field_name', 'block', 'Block'];

/** A feature's name, if one of {@link NAME_KEYS} holds a string or number. */
function nameOf(properties: unknown): string | undefined {
  if (typeof properties !== 'object' || properties === null) return undefined;
  for (const k of NAME_KEYS) {
    const v = (properties as Record<string, unknown>)[k];
    if ((typeof v === 'string' && v.trim()) || typeof v === 'number') return String(v).trim().slice(0, 80);
  }
  return undefined;
}

/** GeoJSON (a geometry, Feature, FeatureCollection or GeometryCollection) as WKT texts, one per point or polygon, with the feature's name. */
function geoJsonToWkts(text: string): { items: Array<{ wkt: string; name?: string }> } | { error: string } {
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: `This looks like GeoJSON but is not valid JSON (${(err as Error).message}).` };
  }
  const out: Array<{ wkt: string; name?: string }> = [];
  const visit = (g: Json, depth: number, name?: string): void => {
    if (depth > 8 || typeof g !== 'object' || g === null) throw new Error('expected a GeoJSON object');
    const o = g as {
      type?: unknown;
      coordinates?: Json;
      geometry?: Json;
      features?: Json;
      geometries?: Json;
      properties?: Json;
    };
    const push = (wkt: string, n = name) => out.push(n ? { wkt, name: n } : { wkt });
    switch (o.type) {
      case 'FeatureCollection':
        if (!Array.isArray(o.features)) throw new Error('a FeatureCollection without "features"');
        o.features.forEach((f) => visit(f, depth + 1));
        return;
      case 'Feature':
        if (o.geometry === null) return;
        visit(o.geometry, depth + 1, nameOf(o.properties));
        return;
      case 'GeometryCollection':
        if (!Array.isArray(o.geometries)) throw new Error('a GeometryCollection without "geometries"');
        o.geometries.forEach((x) => visit(x, depth + 1, name));
        return;
      case 'Point':
        push(`POINT (${pos(o.coordinates)})`);
        return;
      case 'MultiPoint': {
        if (!Array.isArray(o.coordinates)) throw new Error('MultiPoint coordinates are not a list');
        const many = o.coordinates.length > 1;
        o.coordinates.forEach((p, k) => push(`POINT (${pos(p)})`, name && many ? `${name}, ${k + 1}` : name));
        return;
      }
      case 'Polygon':
        push(`POLYGON ${polygon(o.coordinates)}`);
        return;
      case 'MultiPolygon':
        if (!Array.isArray(o.coordinates)) throw new Error('MultiPolygon coordinates are not a list');
        push(`MULTIPOLYGON (${o.coordinates.map(polygon).join(', ')})`);
        return;
      default:
        throw new Error(`a GeoJSON "${String(o.type)}" (points and polygons can be queried; lines cannot)`);
    }
  };
  try {
    visit(Array.isArray(json) ? { type: 'GeometryCollection', geometries: json } : json, 0);
  } catch (err) {
    return { error: `The GeoJSON could not be read: ${(err as Error).message}.` };
  }
  if (out.length === 0) return { error: 'The GeoJSON holds no point or polygon.' };
  return { items: out };
}

/** [west, south, east, north] around the geometries, for fitting the map to them. */
export function boundsOf(geometries: readonly DrawnGeometry[]): [number, number, number, number] | null {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (p: Position) => {
    b[0] = Math.min(b[0], p[0]);
    b[1] = Math.min(b[1], p[1]);
    b[2] = Math.max(b[2], p[0]);
    b[3] = Math.max(b[3], p[1]);
  };
  for (const g of geometries) {
    if (g.kind === 'point') add(g.coordinates as Position);
    else for (const ring of g.coordinates as Position[][]) ring.forEach(add);
  }
  return b[0] <= b[2] ? b : null;
}
