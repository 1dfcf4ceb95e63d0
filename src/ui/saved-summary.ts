/**
 * The words a saved answer is listed under: which geometries (named as the
 * side panel names them) and what was asked. No DOM here.
 */
import { areaOf, type DrawnGeometry } from './query-request.ts';
import { stationWords, subTypeName } from './words.ts';

/** Area as the side panel and the saved answers write it: hectares under 10 ha, else km². */
export function areaText(g: DrawnGeometry): string {
  const a = areaOf(g);
  return a >= 1e5 ? `${(a / 1e6).toFixed(3)} km²` : `${(a / 1e4).toFixed(2)} ha`;
}

/**
 * "G1 point -33.9300, 18.8700", "G1 (Block 7) field of 1.23 ha", or "G1–G3: 3 points": a shape's
 * own name (a pasted GeoJSON feature's) is how a grower finds the answer again.
 */
export function geometriesLabel(used: readonly DrawnGeometry[]): string {
  const first = used[0];
  if (!first) return 'no geometry';
  if (used.length > 1) return `G1–G${used.length}: ${used.length} ${first.kind === 'point' ? 'points' : 'fields'}`;
  const name = first.name ? `G1 (${first.name})` : 'G1';
  if (first.kind === 'point') {
    const [lon, lat] = first.coordinates as [number, number];
    return `${name} point ${lat.toFixed(4)}, ${lon.toFixed(4)}`;
  }
  return `${name} field of ${areaText(first)}`;
}

/**
 * What a request asked, in a line of plain words: source, scale or layer,
 * data types, dates. `describeLayer` names a layer as the dataset's catalog
 * does (default: its code and its sub-type's plain name).
 */
export function requestSummary(
  endpoint: string,
  body: Record<string, unknown>,
  describeLayer?: (dataType: string, subDataType: string) => string,
): string {
  const options = (body.options ?? {}) as Record<string, unknown>;
  // Hours as the table writes them: "2024-06-01 00:00".
  const when = (d: unknown) => String(d).replace(/T(\d{2}:\d{2})(:\d{2})?$/, ' $1');
  const dates = body.startDate ? `; ${when(body.startDate)} to ${when(body.endDate)}` : '';
  if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') {
    const how = endpoint === 'nearest-station' ? 'nearest station' : 'stations in the field';
    const names = (body.dataTypes as string[]).map((t) => stationWords(String(options.timeScale), t).name);
    return `Station records (${how}), ${String(options.timeScale)}: ${names.join('; ')}${dates}`;
  }
  const code = String(options.subDataType ?? '-');
  if (describeLayer) {
    const how = endpoint === 'polygon' ? `, ${String(options.aggregationMethod)} over the field` : '';
    return `${describeLayer(String(body.dataType), code)}${options.timeScale ? ` (${String(options.timeScale)})` : ''}${how}${dates}`;
  }
  const sub = code !== '-' ? `, ${subTypeName(String(body.dataType), code)}` : '';
  const how = endpoint === 'polygon' ? `, ${String(options.aggregationMethod)} over the field` : '';
  return `Layer ${String(body.dataType)}${sub}${options.timeScale ? ` (${String(options.timeScale)})` : ''}${how}${dates}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A saved time as a South African reads it, in the device's clock: "2026-11-23 13:05". */
export function savedTimeLabel(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
