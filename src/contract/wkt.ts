/**
 * The `wkts` field: WGS84 WKT geometries joined by semicolons, parsed by a
 * strict, linear tokenizer written here. @terraformer/wkt was measured
 * super-linear (it concatenates the point array once per vertex: 20k
 * vertices 0.84 s, 80k 15.5 s; a 1 MiB polygon blocked `serve` for 164 s,
 * docs/decisions/0002-platform-facts.md §WKT), and the contract needs only POINT, POLYGON and MULTIPOLYGON.
 * The cheap limits (geometry count, vertex count, nesting depth) are checked
 * on the raw text before any parsing, so the work done for any request is
 * bounded by a few passes over at most 1 MiB. This module also checks the
 * rules a generic parser does not (2-D only, coordinate ranges, closed rings
 * of at least 4 positions, allowed geometry types) and names the item at
 * fault in every message, quoting at most a short piece of it.
 */
import { type ErrorCode, type ErrorParams, fieldError } from './errors.ts';
import { truncate } from './quote.ts';

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

/** Deepest parenthesis nesting of an accepted item (MULTIPOLYGON: polygons, rings, positions). */
export const MAX_WKT_DEPTH = 3;

const preview = (text: string) => truncate(text, 60);

/** Where in wkts a problem is: the item (0-based) and, inside it, the polygon part or ring ("part 2, hole 1"). */
interface Place {
  index: number;
  text: string;
  part?: string;
}

const within = (place: Place, part: string): Place => ({
  ...place,
  part: place.part === undefined ? part : `${place.part}, ${part}`,
});

/**
 * An error about one item: its field is `/wkts/<index>` and its params are
 * `index`, `part` and `reason`, from which a client writes its own subject
 * ("Field G2, outer ring …"); the message writes the contract's.
 */
function itemError(place: Place, reason: string, code: ErrorCode = 'invalid_wkt') {
  const quoted = place.text === '' ? '' : ` ("${preview(place.text)}")`;
  const where = `wkts item ${place.index + 1}${quoted}${place.part ? `, ${place.part}` : ''}`;
  const params: ErrorParams =
    place.part === undefined ? { index: place.index, reason } : { index: place.index, part: place.part, reason };
  return fieldError(code, `/wkts/${place.index}`, `${where} ${reason}`, params);
}

/**
 * Splits `wkts` on semicolons and parses each item. Keys are the items'
 * texts trimmed of surrounding whitespace, which is what responses are keyed by.
 */
export function parseWkts(wkts: unknown, kind: GeometryKind, min: number, max: number): ParsedGeometry[] {
  const field = 'wkts';
  if (typeof wkts !== 'string')
    throw fieldError('invalid_field', field, 'wkts must be a string of WKT texts joined by ";".');
  const noun = kind === 'point' ? 'points' : 'polygons';
  const range = min === max ? `exactly ${min}` : `${min} to ${max}`;
  // Raw-text limits first: counting ";" and numbers is one pass each and
  // stops early, so a hostile megabyte is refused before any parsing.
  const count = countItems(wkts, max + 1);
  if (count > max) {
    throw fieldError('limit_exceeded', field, `More than ${max} ${noun} in wkts; this endpoint takes ${range}.`, {
      of: noun,
      min,
      max,
    });
  }
  const tooManyVertices = () =>
    fieldError('limit_exceeded', field, `More than ${MAX_VERTICES} vertices in wkts in all; simplify the geometries.`, {
      of: 'vertices',
      max: MAX_VERTICES,
    });
  if (countNumbers(wkts, 2 * MAX_VERTICES + 1) > 2 * MAX_VERTICES) throw tooManyVertices();
  const items = wkts.split(';').map((s) => s.trim());
  if (items.length === 1 && items[0] === '')
    throw fieldError('invalid_wkt', field, `wkts is empty; send 1 to ${max} ${kind} WKT text(s).`, {
      reason: 'empty',
      max,
    });
  const emptyAt = items.indexOf('');
  if (emptyAt >= 0)
    throw itemError({ index: emptyAt, text: '' }, 'is empty (two ";" in a row, or a leading or trailing ";").');
  if (items.length < min) {
    throw fieldError('limit_exceeded', field, `wkts holds ${items.length} ${noun}; this endpoint takes ${range}.`, {
      of: noun,
      min,
      max,
      got: items.length,
    });
  }
  const seen = new Map<string, number>();
  let vertices = 0;
  return items.map((text, i) => {
    const place: Place = { index: i, text };
    const prior = seen.get(text);
    if (prior !== undefined)
      throw itemError(place, `repeats item ${prior + 1}; responses are keyed by the WKT text, so each must be unique.`);
    seen.set(text, i);
    const g = parseOne(text, place);
    vertices += countVertices(g);
    if (vertices > MAX_VERTICES) throw tooManyVertices();
    if (g.type === 'Point') {
      if (kind !== 'point') throw itemError(place, 'is a POINT; this endpoint takes POLYGON or MULTIPOLYGON.');
      return { kind: 'point', key: text, index: i, position: checkPosition(g.coordinates, place) };
    }
    if (kind !== 'polygon') throw itemError(place, `is a ${g.type.toUpperCase()}; this endpoint takes POINT.`);
    const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
    return {
      kind: 'polygon',
      key: text,
      index: i,
      multi: g.type === 'MultiPolygon',
      polygons: polygons.map((rings, p) =>
        checkPolygon(rings, g.type === 'MultiPolygon' ? within(place, `part ${p + 1}`) : place),
      ),
    };
  });
}

/** Number of ";"-separated items, counting no further than `stop`. */
function countItems(text: string, stop: number): number {
  let n = 1;
  for (let at = text.indexOf(';'); at >= 0 && n < stop; at = text.indexOf(';', at + 1)) n++;
  return n;
}

/** Number of numeric tokens in `text`, counting no further than `stop`. */
function countNumbers(text: string, stop: number): number {
  // A token starts at a digit and runs over digits, ".", "e", "+", "-":
  // "-1.5e-3" counts once. The regex skips the rest natively.
  const token = /\d[\d.eE+-]*/g;
  let n = 0;
  while (n < stop && token.exec(text)) n++;
  return n;
}

/** Coordinates as read: each position is the list of numbers between commas. */
type Coords = number[];
type Geo =
  | { type: 'Point'; coordinates: Coords }
  | { type: 'Polygon'; coordinates: Coords[][] }
  | { type: 'MultiPolygon'; coordinates: Coords[][][] };

const KNOWN_TYPES = new Set([
  'POINT',
  'LINESTRING',
  'POLYGON',
  'MULTIPOINT',
  'MULTILINESTRING',
  'MULTIPOLYGON',
  'GEOMETRYCOLLECTION',
  'CIRCULARSTRING',
  'COMPOUNDCURVE',
  'CURVEPOLYGON',
  'MULTICURVE',
  'MULTISURFACE',
  'POLYHEDRALSURFACE',
  'TIN',
  'TRIANGLE',
]);
const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
const WORD = /[A-Za-z]+/y;
const SPACE = /\s*/y;

/**
 * A strict left-to-right reader over one item: every step consumes input or
 * throws, and nothing recurses, so time is linear in the text.
 */
class WktReader {
  private at = 0;
  constructor(
    private readonly text: string,
    private readonly place: Place,
  ) {}

  private skipSpace(): void {
    SPACE.lastIndex = this.at;
    SPACE.test(this.text);
    this.at = SPACE.lastIndex;
  }

  /** Throws `invalid_wkt` saying what was expected where, quoting a few characters. */
  fail(expected: string): never {
    const rest = this.text.slice(this.at, this.at + 13);
    const found = rest ? `"${truncate(rest, 12)}"` : 'the end';
    throw itemError(this.place, `is not valid WKT: expected ${expected} at character ${this.at + 1}, found ${found}.`);
  }

  /** The next word, or null when the next token is not a word. */
  word(): string | null {
    this.skipSpace();
    WORD.lastIndex = this.at;
    const m = WORD.exec(this.text);
    if (!m) return null;
    this.at += m[0].length;
    return m[0].toUpperCase();
  }

  /** Consumes `ch` when it comes next; returns whether it did. */
  accept(ch: '(' | ')' | ','): boolean {
    this.skipSpace();
    if (this.text[this.at] !== ch) return false;
    this.at++;
    return true;
  }

  expect(ch: '(' | ')' | ','): void {
    if (!this.accept(ch)) this.fail(`"${ch}"`);
  }

  /** One position: numbers separated by spaces. Their count is checked by the caller. */
  position(): Coords {
    const out: number[] = [];
    for (;;) {
      this.skipSpace();
      NUMBER.lastIndex = this.at;
      const m = NUMBER.exec(this.text);
      if (!m) break;
      this.at += m[0].length;
      out.push(Number(m[0]));
    }
    if (out.length === 0) this.fail('a number');
    return out;
  }

  /** "(" item ("," item)* ")" */
  list<T>(item: () => T): T[] {
    this.expect('(');
    const out = [item()];
    while (this.accept(',')) out.push(item());
    this.expect(')');
    return out;
  }

  end(): void {
    this.skipSpace();
    if (this.at < this.text.length) this.fail('the end of the geometry');
  }
}

function parseOne(text: string, place: Place): Geo {
  const invalid = (why: string) => itemError(place, why);
  // Nesting is checked on the raw text, before reading any coordinate.
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 && ++depth > MAX_WKT_DEPTH) {
      throw invalid(
        `nests parentheses more than ${MAX_WKT_DEPTH} deep; POINT, POLYGON and MULTIPOLYGON nest at most ${MAX_WKT_DEPTH}.`,
      );
    }
    if (c === 41) depth--;
  }
  const r = new WktReader(text, place);
  const type = r.word();
  if (type === null || !KNOWN_TYPES.has(type)) r.fail('POINT, POLYGON or MULTIPOLYGON');
  const modifier = r.word();
  if (modifier === 'Z' || modifier === 'M' || modifier === 'ZM')
    throw invalid('has Z or M coordinates; send 2-D WGS84 longitude latitude only.');
  if (modifier === 'EMPTY') throw invalid('is EMPTY.');
  if (modifier !== null) r.fail('"("');
  const ring = () => r.list(() => r.position());
  let g: Geo;
  if (type === 'POINT') {
    g = { type: 'Point', coordinates: r.list(() => r.position())[0]! };
  } else if (type === 'POLYGON') {
    g = { type: 'Polygon', coordinates: r.list(ring) };
  } else if (type === 'MULTIPOLYGON') {
    g = { type: 'MultiPolygon', coordinates: r.list(() => r.list(ring)) };
  } else {
    throw invalid(`is a ${type}; only POINT, POLYGON and MULTIPOLYGON are accepted.`);
  }
  r.end();
  return g;
}

function countVertices(g: Geo): number {
  if (g.type === 'Point') return 1;
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  let n = 0;
  for (const rings of polys) for (const ring of rings) n += ring.length;
  return n;
}

function checkPosition(p: unknown, place: Place): Position {
  if (Array.isArray(p) && p.length > 2)
    throw itemError(place, 'has Z or M coordinates; send 2-D WGS84 longitude latitude only.');
  if (!Array.isArray(p) || p.length !== 2 || !p.every((v) => typeof v === 'number' && Number.isFinite(v)))
    throw itemError(place, 'has a position that is not two finite numbers "lon lat".');
  const [lon, lat] = p as [number, number];
  if (lon < -180 || lon > 180)
    throw itemError(place, `has longitude ${lon} outside -180..180 (WKT order is "lon lat").`);
  if (lat < -90 || lat > 90) throw itemError(place, `has latitude ${lat} outside -90..90 (WKT order is "lon lat").`);
  return [lon, lat];
}

function checkPolygon(rings: unknown, place: Place): PolygonCoords {
  if (!Array.isArray(rings) || rings.length === 0) throw itemError(place, 'has no rings.');
  return rings.map((ring: unknown, r) => {
    const at = within(place, r === 0 ? 'outer ring' : `hole ${r}`);
    if (!Array.isArray(ring) || ring.length < 4) {
      throw itemError(
        at,
        `has ${Array.isArray(ring) ? ring.length : 0} positions; a ring needs at least 4 (the last repeating the first).`,
      );
    }
    const pts = ring.map((p) => checkPosition(p, at));
    const [a, b] = [pts[0]!, pts[pts.length - 1]!];
    if (a[0] !== b[0] || a[1] !== b[1]) {
      throw itemError(
        at,
        `is not closed: it starts at ${a[0]} ${a[1]} and ends at ${b[0]} ${b[1]}; repeat the first position at the end.`,
      );
    }
    if (planarRingArea(pts) === 0) throw itemError(at, 'has zero area (its positions are collinear or repeated).');
    return pts;
  });
}

/** Signed shoelace area in square degrees (positive counter-clockwise). */
export function planarRingArea(ring: readonly Position[]): number {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) s += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return s / 2;
}
