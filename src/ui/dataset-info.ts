/**
 * What the UI reads from the dataset's catalog: the area it covers. Kept
 * apart from the engine, which reads the catalog for answers; here it only
 * shapes the page, so a user's own dataset shows nothing of the demo.
 */
import { CALENDARS } from '../contract/calendars.ts';
import { requestDateOf, type TimeScale } from '../contract/periods.ts';
import { timeScaleSpec } from '../contract/time-scales.ts';
import type { Catalog } from '../dataset/catalog.ts';
import type { IndexedStation } from '../stations/station-index.ts';

/**
 * [west, south, east, north] to open the map on: the stations when the
 * dataset has any (that is where answers are), else its lon/lat rasters;
 * South Africa's mainland when it has neither.
 */
export function datasetBounds(catalog: Catalog, stations: readonly IndexedStation[]): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (lon: number, lat: number) => {
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return;
    [w, s, e, n] = [Math.min(w, lon), Math.min(s, lat), Math.max(e, lon), Math.max(n, lat)];
  };
  for (const st of stations) add(st.lon, st.lat);
  for (const r of stations.length ? [] : (catalog.rasters ?? [])) {
    // Only geographic grids: a projected bbox is in metres.
    if (!/4326|WGS ?84|CRS84/i.test(r.crs ?? '')) continue;
    add(r.bbox[0], r.bbox[1]);
    add(r.bbox[2], r.bbox[3]);
  }
  if (!(w < e && s < n)) return [16.3, -34.9, 33.0, -22.1];
  return [w, s, e, n];
}

/**
 * First and last period a station (or, without one, any station) holds at
 * `scale`, from the station index; null when none. The index keeps one span
 * per station and scale, not per data type (per-type detail is fetched only
 * for the stations a query considers), so callers say "records", not which types.
 */
export function stationHeldRange(
  stations: readonly IndexedStation[],
  scale: string,
  station?: { lat: number; lon: number },
): [string, string] | null {
  let first: string | null = null;
  let last: string | null = null;
  for (const s of stations) {
    if (station && (s.lat !== station.lat || s.lon !== station.lon)) continue;
    const file = (s.files as Record<string, { first: string; last: string } | undefined>)[scale];
    if (!file) continue;
    if (first === null || file.first < first) first = file.first;
    if (last === null || file.last > last) last = file.last;
  }
  return first && last ? [first, last] : null;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Default request dates for station data: the latest full calendar month
 * the dataset holds (hourly: its first week; monthly: the 12 months up to
 * it), so a first query is never empty because of the dates. When the data
 * do not reach back over a full month (three weeks of June), the days they
 * hold of their last month instead; never a start before the data begin.
 */
export function defaultStationDates(
  stations: readonly IndexedStation[],
  scale: string,
): { startDate: string; endDate: string } | null {
  const range = stationHeldRange(stations, scale);
  if (!range) return null;
  const [begin, end] = range;
  let y = Number(end.slice(0, 4));
  let m = Number(end.slice(5, 7));
  const calendar = timeScaleSpec(scale)?.calendar ?? 'day';
  const cal = CALENDARS[calendar];
  // A month is full when the data reach the period holding its last day (a monthly key is the whole month).
  const full = cal.ordinalOfMs(Date.UTC(y, m, 0)) <= cal.ordinalOfKey(end);
  if (!full) [y, m] = m === 1 ? [y - 1, 12] : [y, m - 1];
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const ym = `${y}-${pad(m)}`;
  if (calendar === 'month' || calendar === 'dekad') {
    // Periods longer than a day: the year of them up to that month, from the data's first at the earliest.
    const first = Math.max(cal.ordinalOfMs(Date.UTC(y - 1, m, 1)), cal.ordinalOfKey(begin));
    const last = cal.ordinalOfMs(Date.UTC(y, m, 0));
    const date = (o: number) => requestDateOf(scale as TimeScale, cal.keyOf(o));
    return { startDate: date(first), endDate: date(last) };
  }
  const [firstDay, lastDataDay] = [begin.slice(0, 10), end.slice(0, 10)];
  let from = `${ym}-01`;
  let to = `${ym}-${pad(days)}`;
  // The previous month holds nothing: the data's own last month, as far as they go.
  if (to < firstDay) [from, to] = [`${end.slice(0, 7)}-01`, lastDataDay];
  if (from < firstDay) from = firstDay;
  if (scale === 'hourly') {
    const week = new Date(Date.parse(`${from}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10);
    return { startDate: `${from}T00:00:00`, endDate: `${week < to ? week : to}T23:00:00` };
  }
  return { startDate: from, endDate: to };
}

/**
 * The ids of the stations that answered a station query (matched by the
 * position its metadata gives), for the SQL panel to start from.
 */
export function answeringStations(stations: readonly IndexedStation[], answer: unknown): string[] {
  if (typeof answer !== 'object' || answer === null) return [];
  const a = answer as Record<string, unknown>;
  const metas =
    a.stations_metadata && typeof a.stations_metadata === 'object'
      ? Object.values(a.stations_metadata as Record<string, unknown>)
      : Object.values(a).map((v) => (v && typeof v === 'object' ? (v as { metadata?: unknown }).metadata : undefined));
  const ids = new Set<string>();
  for (const m of metas) {
    const meta = m as { station_lat?: unknown; station_lon?: unknown } | undefined;
    const s = meta && stations.find((x) => x.lat === meta.station_lat && x.lon === meta.station_lon);
    if (s) ids.add(s.id);
  }
  return [...ids].slice(0, 50);
}

/** The SQL panel's default days: the year up to the last day the dataset holds at `scale`. */
export function sqlDefaultDays(stations: readonly IndexedStation[], scale: string): { from: string; to: string } {
  const range = stationHeldRange(stations, scale);
  if (!range) return { from: '', to: '' };
  // A key names its period's first instant: the year runs to the last day of that period (a month's end, a dekad's).
  const cal = CALENDARS[timeScaleSpec(scale)?.calendar ?? 'day'];
  const lastPeriod = cal.ordinalOfKey(range[1]);
  const last = Number.isFinite(lastPeriod)
    ? new Date(cal.startMs(lastPeriod + 1) - 1)
    : new Date(`${range[1].slice(0, 10)}T00:00:00Z`);
  last.setUTCHours(0, 0, 0, 0);
  const first = new Date(Date.UTC(last.getUTCFullYear() - 1, last.getUTCMonth(), last.getUTCDate() + 1));
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const from = day(first) < range[0].slice(0, 10) ? range[0].slice(0, 10) : day(first);
  return { from, to: day(last) };
}

/** Distance (km) beyond which a nearest station is said to be far: farther than a farm's weather is alike. */
export const FAR_STATION_KM = 100;

/**
 * A warning for a point outside the dataset's area (`bounds`, from
 * {@link datasetBounds}, widened by half a degree): when the point with
 * longitude and latitude swapped lies inside, it says so and gives the
 * swapped WKT ("POINT (-33.93 18.86)" for Stellenbosch answered from a
 * station 7,717 km away); otherwise that the point lies outside. Null
 * inside the area.
 */
export function placeWarning(
  lon: number,
  lat: number,
  bounds: readonly [number, number, number, number],
): string | null {
  const [w, s, e, n] = bounds;
  const inside = (x: number, y: number) => x >= w - 0.5 && x <= e + 0.5 && y >= s - 0.5 && y <= n + 0.5;
  if (inside(lon, lat)) return null;
  const at = `${lat.toFixed(4)}, ${lon.toFixed(4)} (latitude, longitude)`;
  if (inside(lat, lon))
    return `The point at ${at} lies outside this dataset's area, but with its two numbers swapped it would lie inside: WKT is longitude first, so perhaps you meant POINT (${lat} ${lon}).`;
  return `The point at ${at} lies outside this dataset's area (longitude ${w.toFixed(1)} to ${e.toFixed(1)}, latitude ${s.toFixed(1)} to ${n.toFixed(1)}).`;
}
