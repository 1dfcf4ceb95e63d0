/**
 * The query, the drawn geometries and the map view as the URL's hash carries them (url-state.ts
 * keeps the URL and the app in step): a shared link or a reload shows the same thing.
 */
import type { PolygonCoords, Position } from '../contract/wkt.ts';
import { DEFAULT_FORM, type DrawnGeometry, type FormState } from './query-request.ts';

/** Encodes the form and geometries for the URL hash. */
export function encodeState(form: FormState, geometries: readonly DrawnGeometry[]): string {
  return `#q=${encodeURIComponent(JSON.stringify({ f: form, g: geometries.map((g) => ({ k: g.kind, c: g.coordinates, ...(g.name ? { n: g.name } : {}) })) }))}`;
}

/** Decodes a URL hash written by {@link encodeState}; null when absent or unreadable. */
export function decodeState(hash: string): { form: FormState; geometries: DrawnGeometry[] } | null {
  const m = /^#q=([^&]*)/.exec(hash);
  if (!m) return null;
  try {
    const v = JSON.parse(decodeURIComponent(m[1]!)) as {
      f: Partial<FormState>;
      g: Array<{ k: 'point' | 'polygon'; c: Position | PolygonCoords; n?: unknown }>;
    };
    return {
      form: { ...DEFAULT_FORM, ...v.f },
      geometries: v.g.map((g, i) => ({
        id: `u${i}`,
        kind: g.k,
        coordinates: g.c,
        ...(typeof g.n === 'string' && g.n ? { name: g.n.slice(0, 80) } : {}),
      })),
    };
  } catch {
    return null;
  }
}

/** The map view in the URL hash: "map=zoom/lat/lon", as common map sites write it. */
export function encodeView(v: { zoom: number; lat: number; lon: number }): string {
  return `map=${v.zoom.toFixed(2)}/${v.lat.toFixed(5)}/${v.lon.toFixed(5)}`;
}

/** The map view a hash holds, or null. */
export function decodeView(hash: string): { zoom: number; lat: number; lon: number } | null {
  const m = /[#&]map=(-?[\d.]+)\/(-?[\d.]+)\/(-?[\d.]+)/.exec(hash);
  if (!m) return null;
  const [zoom, lat, lon] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return Number.isFinite(zoom) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { zoom, lat, lon } : null;
}
