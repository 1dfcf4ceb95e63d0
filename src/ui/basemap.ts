/**
 * The basemaps: an offline one bundled with the app (Natural Earth land
 * and provinces, GeoNames places, labels drawn from a bundled font), and
 * online tile layers a user may switch to. The offline map is always
 * underneath, so when tiles fail it is what shows (see docs/basemaps.md).
 */
import type { LayerSpecification, StyleSpecification } from 'maplibre-gl';
import provincesUrl from '../../data-sources/za-provinces-naturalearth-10m.geojson?url';
import neighboursUrl from './basemap/neighbours.json?url';
import notoSansLatinUrl from '@fontsource/noto-sans/files/noto-sans-latin-400-normal.woff2?url';
import placesUrl from './basemap/places.json?url';

/** A place of the bundled gazetteer: [name, lon, lat, population, ISO country]. */
export type Place = [string, number, number, number, string];

/** An online basemap: a raster tile template and the credit its terms ask for. */
export interface OnlineBasemap {
  id: string;
  title: string;
  tiles: string;
  maxzoom: number;
  attribution: string;
  /** Whether the tiles carry their own labels (then ours are hidden). */
  labelled: boolean;
}

/**
 * The online basemaps offered by default. Their terms are in
 * docs/basemaps.md: OpenStreetMap's tile usage policy (light interactive
 * use, attribution), and EOxCloudless Sentinel-2 (CC BY-NC-SA 4.0 for
 * non-commercial use; commercial use needs EOX's licence).
 */
export const ONLINE_BASEMAPS: readonly OnlineBasemap[] = [
  {
    id: 'streets',
    title: 'Street map (online)',
    tiles: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
    maxzoom: 19,
    attribution: '© <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    labelled: true,
  },
  {
    id: 'satellite',
    title: 'Satellite (online, non-commercial)',
    tiles: 'https://tiles.maps.eox.at/wmts/1.0.0/s2cloudless-2020_3857/default/g/{z}/{y}/{x}.jpg',
    maxzoom: 15,
    attribution:
      'EOxCloudless https://cloudless.eox.at by EOX IT Services GmbH (Contains modified Copernicus Sentinel data 2020)',
    labelled: false,
  },
];

/** Credit for the bundled offline map's data. */
export const OFFLINE_ATTRIBUTION = 'Natural Earth; places © GeoNames (CC BY 4.0); Noto Sans (OFL)';

/** The font stack the labels use; drawn locally from the bundled woff2 by MapLibre's `font-faces`. */
const FONT = 'Noto Sans Regular';

/** The offline style: sea, land, provinces, neighbours and labelled places, all bundled. */
export function offlineStyle(base: string = location.href): StyleSpecification {
  const abs = (u: string) => new URL(u, base).href;
  const labels = (layer: Omit<LayerSpecification & { type: 'symbol' }, 'type'>): LayerSpecification =>
    ({ ...layer, type: 'symbol' }) as LayerSpecification;
  return {
    version: 8,
    // MapLibre draws every glyph from this bundled file (TinySDF in the
    // browser), so no glyph server is needed; the glyphs URL is never reached.
    glyphs: `${abs('./')}glyphs/{fontstack}/{range}.pbf`,
    'font-faces': { [FONT]: [{ url: abs(notoSansLatinUrl) }] },
    sources: {
      provinces: { type: 'geojson', data: abs(provincesUrl) },
      neighbours: { type: 'geojson', data: abs(neighboursUrl) },
      places: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
    },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#b9d3e3' } },
      { id: 'neighbours', type: 'fill', source: 'neighbours', paint: { 'fill-color': '#e4e0d6' } },
      {
        id: 'neighbour-borders',
        type: 'line',
        source: 'neighbours',
        paint: { 'line-color': '#8d8170', 'line-width': 1 },
      },
      { id: 'land', type: 'fill', source: 'provinces', paint: { 'fill-color': '#f6f3ec' } },
      {
        id: 'borders',
        type: 'line',
        source: 'provinces',
        paint: { 'line-color': '#8d8170', 'line-width': 0.8, 'line-dasharray': [3, 2] },
      },
      {
        id: 'place-dots',
        type: 'circle',
        source: 'places',
        minzoom: 7,
        paint: {
          'circle-radius': 2.5,
          'circle-color': '#333',
          'circle-stroke-color': '#fff',
          'circle-stroke-width': 1,
        },
      },
      labels({
        id: 'place-labels',
        source: 'places',
        layout: {
          'text-field': ['get', 'name'],
          'text-font': [FONT],
          // Bigger towns win collisions and are larger.
          'symbol-sort-key': ['-', 0, ['get', 'population']],
          'text-size': ['interpolate', ['linear'], ['get', 'population'], 1000, 11, 100000, 13, 1000000, 16],
          'text-variable-anchor': ['top', 'bottom', 'left', 'right'],
          'text-radial-offset': 0.5,
          'text-max-width': 8,
        },
        paint: { 'text-color': '#222', 'text-halo-color': '#fff', 'text-halo-width': 1.5 },
      }),
      labels({
        id: 'country-labels',
        source: 'neighbours',
        maxzoom: 8,
        layout: {
          'text-field': ['upcase', ['get', 'name']],
          'text-font': [FONT],
          'text-size': 12,
          'text-letter-spacing': 0.1,
        },
        paint: { 'text-color': '#6d6354', 'text-halo-color': '#fff', 'text-halo-width': 1 },
      }),
    ],
  };
}

/** Loads the bundled gazetteer (≈ 19 kB, 464 places). */
export async function loadPlaces(base: string = location.href): Promise<Place[]> {
  const res = await fetch(new URL(placesUrl, base));
  return (await res.json()) as Place[];
}

/** The gazetteer as GeoJSON for the `places` source. */
export function placesGeoJson(places: readonly Place[]): GeoJSON.FeatureCollection {
  return {
    type: 'FeatureCollection',
    features: places.map(([name, lon, lat, population]) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [lon, lat] },
      properties: { name, population },
    })),
  };
}

/**
 * The online basemap a URL asks for: `?basemap=streets|satellite|offline`,
 * or `?tiles=<XYZ template>` (with optional `&tilesAttribution=`) for a
 * source of the user's own. Null means the offline map.
 */
export function basemapFromUrl(params: URLSearchParams): OnlineBasemap | null {
  const tiles = params.get('tiles');
  if (tiles)
    return {
      id: 'custom',
      title: 'Your tiles',
      tiles,
      maxzoom: 19,
      attribution: params.get('tilesAttribution') ?? tiles.replace(/^https?:\/\/([^/]+).*/, '$1'),
      labelled: false,
    };
  return ONLINE_BASEMAPS.find((b) => b.id === params.get('basemap')) ?? null;
}
