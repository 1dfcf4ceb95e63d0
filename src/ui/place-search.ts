/**
 * What the "Find a place or coordinates" box understands: a town of the
 * bundled gazetteer, or coordinates in decimal degrees or degrees, minutes
 * and seconds. Pure functions, no DOM.
 */
import type { Place } from './basemap.ts';

/** A place to move the map to. */
export interface Found {
  label: string;
  lon: number;
  lat: number;
  /** Zoom to show it at: a town at 12, typed coordinates at 14. */
  zoom: number;
}

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’']/g, '');

/**
 * Places whose name starts with (then contains) the query, bigger towns
 * first; at most `limit`.
 */
export function searchPlaces(places: readonly Place[], query: string, limit = 8): Found[] {
  const q = fold(query.trim());
  if (q.length < 2) return [];
  const starts: Place[] = [];
  const contains: Place[] = [];
  for (const p of places) {
    const n = fold(p[0]);
    if (n.startsWith(q)) starts.push(p);
    else if (n.includes(q)) contains.push(p);
  }
  // The gazetteer is sorted by population already.
  return [...starts, ...contains].slice(0, limit).map(([name, lon, lat, , country]) => ({
    label: country === 'ZA' ? name : `${name} (${country})`,
    lon,
    lat,
    zoom: 12,
  }));
}

/** One angle: "33.9", "-33.9", "33°56'5\"S", "33 56 5 S", "33°56.08'". */
function parseAngle(text: string): { value: number; hemi: string | null } | null {
  const t = text.trim().toUpperCase();
  const hemiMatch = /^([NSEW])\s*(.*)$/.exec(t) ?? /^(.*?)\s*([NSEW])$/.exec(t);
  let body = t;
  let hemi: string | null = null;
  if (hemiMatch) {
    const [a, b] = [hemiMatch[1]!, hemiMatch[2]!];
    if (/^[NSEW]$/.test(a)) [hemi, body] = [a, b];
    else [body, hemi] = [a, b];
  }
  const parts = body
    .replace(/[°º'′"″]/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (!parts.length || parts.length > 3 || !parts.every((p) => /^[-+]?\d+(\.\d+)?$/.test(p))) return null;
  const [d, m = '0', s = '0'] = parts;
  const deg = Number(d);
  const min = Number(m);
  const sec = Number(s);
  if (min < 0 || min >= 60 || sec < 0 || sec >= 60 || (parts.length > 1 && !Number.isInteger(deg))) return null;
  const sign = deg < 0 || Object.is(deg, -0) || d!.startsWith('-') ? -1 : 1;
  return { value: sign * (Math.abs(deg) + min / 60 + sec / 3600), hemi };
}

/**
 * Coordinates typed by a person: "-33.9346, 18.8668" (lat, lon), or with
 * hemispheres in any order ("33°56'05\"S 18°52'00\"E", "18.87E 33.93S").
 * Without hemispheres the first number is the latitude, as GPS apps show.
 * Null when the text is not coordinates or is out of range.
 */
export function parseCoordinates(text: string): Found | null {
  const t = text.trim();
  // Split into two angles: at a comma/semicolon, or after a hemisphere letter.
  let pieces = t.split(/\s*[,;]\s*/);
  if (pieces.length !== 2) {
    const m =
      /^(.*?[NSns])\s+(.*[EWew])$|^(.*?[EWew])\s+(.*[NSns])$/.exec(t) ?? /^([NSEWnsew].*?)\s+([NSEWnsew].*)$/.exec(t);
    if (m) pieces = [m[1] ?? m[3]!, m[2] ?? m[4]!];
    else {
      const nums = t.split(/\s+/);
      if (nums.length === 2) pieces = nums;
      else return null;
    }
  }
  const a = parseAngle(pieces[0]!);
  const b = parseAngle(pieces[1]!);
  if (!a || !b) return null;
  let lat: number;
  let lon: number;
  const isLon = (h: string | null) => h === 'E' || h === 'W';
  if (isLon(a.hemi) || (b.hemi !== null && !isLon(b.hemi) && a.hemi === null))
    [lon, lat] = [a.value * (a.hemi === 'W' ? -1 : 1), b.value * (b.hemi === 'S' ? -1 : 1)];
  else [lat, lon] = [a.value * (a.hemi === 'S' ? -1 : 1), b.value * (b.hemi === 'W' ? -1 : 1)];
  if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) return null;
  return { label: `${lat.toFixed(5)}, ${lon.toFixed(5)}`, lon, lat, zoom: 14 };
}
