/**
 * The map: the bundled offline basemap (land, provinces, labelled towns;
 * see basemap.ts) with optional online tiles over it that fall back to it
 * when they fail, zoom and "my location" controls, the weather stations
 * with popups, drawing with terra-draw, polygons over 2 km² outlined in
 * red, and the raster preview as an image layer.
 */
import {
  GeolocateControl,
  Map as MapLibreMap,
  Marker,
  NavigationControl,
  Popup,
  ScaleControl,
  setWorkerUrl,
  type GeoJSONSource,
} from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import maplibreWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import {
  TerraDraw,
  TerraDrawPointMode,
  TerraDrawPolygonMode,
  TerraDrawRectangleMode,
  TerraDrawSelectMode,
} from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import { OFFLINE_ATTRIBUTION, offlineStyle, placesGeoJson, type OnlineBasemap, type Place } from './basemap.ts';
import type { Catalog } from '../dataset/catalog.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import type { PolygonCoords, Position } from '../contract/wkt.ts';
import type { DrawnGeometry } from './query-request.ts';

setWorkerUrl(maplibreWorkerUrl);

/** Drawing tools offered in the toolbar. */
export type DrawTool = 'point' | 'polygon' | 'rectangle' | 'select';

/** The map and its drawing, as the rest of the UI sees them. */
export interface MapView {
  map: MapLibreMap;
  draw: TerraDraw;
  /** Current geometries, in drawing order. */
  geometries(): DrawnGeometry[];
  setTool(tool: DrawTool): void;
  deleteSelected(): void;
  clear(): void;
  /**
   * Replaces the drawn geometries (URL state, pasted shapes, the map centre).
   * Returns why any could not be drawn (empty when all were).
   */
  load(geometries: DrawnGeometry[]): string[];
  /** Outlines these polygons as over the limit. */
  markTooLarge(ids: string[]): void;
  showPreview(image: HTMLCanvasElement | null, bbox?: [number, number, number, number]): void;
  onChange(listener: () => void): void;
  /** Shows online tiles over the offline map, or only the offline map (null). */
  setBasemap(basemap: OnlineBasemap | null): void;
  /** Called once online tiles failed and the offline map took over. */
  onBasemapFallback(listener: (failed: OnlineBasemap) => void): void;
  /**
   * Outlines the shapes of the answers saved on this device, labelled: on
   * the offline map at farm zoom they are what a grower recognises (the
   * bundled map has towns, not roads; docs/basemaps.md).
   */
  setSavedShapes(items: ReadonlyArray<{ geometry: DrawnGeometry; label: string }>): void;
  /** Labels drawn geometries on the map (G1, G2… as in the side panel). */
  setLabels(items: Array<{ lon: number; lat: number; label: string }>): void;
  /** Highlights the stations that answered, each with a line to the point it answered for. */
  showAnswer(links: Array<{ from: Position; station: Position }>): void;
  /** Moves the map to a found place and marks it. */
  goTo(target: { lon: number; lat: number; zoom: number; label: string }): void;
}

/** How the map starts. */
export interface MapOptions {
  /** A whole MapLibre style URL (`?style=`) instead of the bundled one. */
  styleUrl?: string;
  places: readonly Place[];
  /** [west, south, east, north] to show first. */
  bounds: [number, number, number, number];
  /** The weather stations, from the station index the catalog points to (docs/data.md). */
  stations?: readonly IndexedStation[];
}

/** What a station holds, per time scale, as years (from the station index). */
function yearsOf(s: IndexedStation): string {
  const parts: string[] = [];
  for (const [scale, file] of Object.entries(s.files)) {
    const first = file.first.slice(0, 4);
    const last = file.last.slice(0, 4);
    parts.push(`${scale} ${first === last ? first : `${first}–${last}`}`);
  }
  return parts.join(', ') || 'no data';
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Creates the map in `container`. Resolves when the style and stations are loaded and drawing is ready. */
export async function createMapView(container: HTMLElement, catalog: Catalog, options: MapOptions): Promise<MapView> {
  const map = new MapLibreMap({
    container,
    style: options.styleUrl ?? offlineStyle(),
    bounds: options.bounds,
    fitBoundsOptions: { padding: 10 },
    // The dataset's own credits come from its catalog, never the demo's.
    attributionControl: { compact: true, customAttribution: [OFFLINE_ATTRIBUTION, ...catalog.attribution] },
  });
  map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
  map.addControl(
    new GeolocateControl({ positionOptions: { enableHighAccuracy: true }, fitBoundsOptions: { maxZoom: 14 } }),
    'top-right',
  );
  map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
  await new Promise<void>((resolve) => map.once('load', () => resolve()));
  // The app's own sources and layers, under names no style takes: a style (?style=) that declared a
  // source "stations" had stopped the app ("Source "stations" already exists"); a name still taken is
  // renamed with a number.
  const ID = ownIds(map, [
    'online',
    'stations',
    'geometry-labels',
    'answer',
    'answer-links',
    'answer-stations',
    'too-large',
    'preview',
    'saved-shapes',
    'saved-outlines',
    'saved-points',
    'saved-labels',
  ]);
  // Credits folded behind their (i) button, so they never cover the land one draws on.
  container.querySelector('.maplibregl-ctrl-attrib')?.classList.remove('maplibregl-compact-show');
  if (map.getSource('places')) (map.getSource('places') as GeoJSONSource).setData(placesGeoJson(options.places));

  // Online tiles sit above the offline land but below labels and data.
  let online: OnlineBasemap | null = null;
  const fallbackListeners: Array<(b: OnlineBasemap) => void> = [];
  const setBasemap = (b: OnlineBasemap | null) => {
    if (map.getLayer(ID.online)) map.removeLayer(ID.online);
    if (map.getSource(ID.online)) map.removeSource(ID.online);
    online = b;
    const labelled = b?.labelled ?? false;
    for (const id of ['place-labels', 'place-dots', 'country-labels'])
      if (map.getLayer(id)) map.setLayoutProperty(id, 'visibility', labelled ? 'none' : 'visible');
    if (!b) return;
    map.addSource(ID.online, {
      type: 'raster',
      tiles: [b.tiles],
      tileSize: 256,
      maxzoom: b.maxzoom,
      attribution: b.attribution,
    });
    map.addLayer(
      { id: ID.online, type: 'raster', source: ID.online },
      map.getLayer('place-dots') ? 'place-dots' : undefined,
    );
  };
  map.on('error', (e) => {
    // A failed tile (offline, blocked, 4xx/5xx): the offline map takes over at once.
    if ((e as unknown as { sourceId?: string }).sourceId !== ID.online || !online) return;
    const failed = online;
    setBasemap(null);
    fallbackListeners.forEach((l) => l(failed));
  });
  let searchMarker: Marker | null = null;

  const stations = options.stations ?? [];
  map.addSource(ID.stations, {
    type: 'geojson',
    data: {
      type: 'FeatureCollection',
      features: stations.map((s) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [s.lon, s.lat] },
        properties: { id: s.id },
      })),
    },
  });
  map.addLayer({
    id: ID.stations,
    type: 'circle',
    source: ID.stations,
    paint: { 'circle-radius': 4, 'circle-color': '#1d5f8a', 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 },
  });
  // Saved answers' shapes, under everything drawn now: grey, dashed, named.
  map.addSource(ID['saved-shapes'], { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({
    id: ID['saved-outlines'],
    type: 'line',
    source: ID['saved-shapes'],
    filter: ['==', ['geometry-type'], 'Polygon'],
    paint: { 'line-color': '#5b5346', 'line-width': 1.5, 'line-dasharray': [3, 2] },
  });
  map.addLayer({
    id: ID['saved-points'],
    type: 'circle',
    source: ID['saved-shapes'],
    filter: ['==', ['geometry-type'], 'Point'],
    paint: {
      'circle-radius': 4,
      'circle-color': 'rgba(0,0,0,0)',
      'circle-stroke-color': '#5b5346',
      'circle-stroke-width': 1.5,
    },
  });
  if (!options.styleUrl) {
    map.addLayer({
      id: ID['saved-labels'],
      type: 'symbol',
      source: ID['saved-shapes'],
      minzoom: 9,
      layout: {
        'text-field': ['get', 'label'],
        'text-font': ['Noto Sans Regular'],
        'text-size': 11,
        'text-max-width': 10,
        // Below the shape where there is room, else beside or above it: never over a town's name.
        'text-variable-anchor': ['top', 'bottom', 'left', 'right'],
        'text-radial-offset': 0.6,
      },
      paint: { 'text-color': '#5b5346', 'text-halo-color': '#fff', 'text-halo-width': 1.5 },
    });
  }
  // Drawn geometries' labels, and the answer: the station that answered, joined to its point.
  map.addSource(ID['geometry-labels'], { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addSource(ID.answer, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({
    id: ID['answer-links'],
    type: 'line',
    source: ID.answer,
    filter: ['==', ['geometry-type'], 'LineString'],
    paint: { 'line-color': '#b3261e', 'line-width': 2.5, 'line-dasharray': [2, 1] },
  });
  map.addLayer({
    id: ID['answer-stations'],
    type: 'circle',
    source: ID.answer,
    filter: ['==', ['geometry-type'], 'Point'],
    paint: {
      'circle-radius': 9,
      'circle-color': 'rgba(0,0,0,0)',
      'circle-stroke-color': '#b3261e',
      'circle-stroke-width': 3,
    },
  });
  if (!options.styleUrl) {
    map.addLayer({
      id: ID['geometry-labels'],
      type: 'symbol',
      source: ID['geometry-labels'],
      layout: {
        'text-field': ['get', 'label'],
        'text-font': ['Noto Sans Regular'],
        'text-size': 14,
        'text-offset': [0, -1.3],
        'text-allow-overlap': true,
        'text-ignore-placement': false,
      },
      paint: { 'text-color': '#7a4a00', 'text-halo-color': '#fff', 'text-halo-width': 2 },
    });
  }
  map.addSource(ID['too-large'], { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({
    id: ID['too-large'],
    type: 'line',
    source: ID['too-large'],
    paint: { 'line-color': '#c62828', 'line-width': 3, 'line-dasharray': [2, 1] },
  });

  const byId = new Map(stations.map((s) => [s.id, s]));
  map.on('click', ID.stations, (e) => {
    if (drawTool !== 'select') return;
    const id = e.features?.[0]?.properties?.id as string | undefined;
    const s = id ? byId.get(id) : undefined;
    if (!s) return;
    new Popup()
      .setLngLat([s.lon, s.lat])
      .setHTML(
        `<strong>${escapeHtml(s.name)}</strong><br>${s.elevation === null ? 'elevation unknown' : `${s.elevation} m`}<br>${escapeHtml(yearsOf(s))}`,
      )
      .addTo(map);
  });

  const draw = new TerraDraw({
    adapter: new TerraDrawMapLibreGLAdapter({ map }),
    modes: [
      // Drawn geometries are amber, squarer and outlined in black: unlike the blue station dots.
      new TerraDrawPointMode({
        styles: { pointColor: '#f0b429', pointWidth: 7, pointOutlineColor: '#000000', pointOutlineWidth: 2 },
      }),
      new TerraDrawPolygonMode({
        styles: { fillColor: '#f0b429', fillOpacity: 0.25, outlineColor: '#7a4a00', outlineWidth: 2.5 },
      }),
      new TerraDrawRectangleMode({
        styles: { fillColor: '#f0b429', fillOpacity: 0.25, outlineColor: '#7a4a00', outlineWidth: 2.5 },
      }),
      new TerraDrawSelectMode({
        flags: {
          point: { feature: { draggable: true } },
          polygon: { feature: { draggable: true, coordinates: { midpoints: true, draggable: true, deletable: true } } },
          rectangle: { feature: { draggable: true, coordinates: { draggable: true } } },
        },
      }),
    ],
  });
  draw.start();
  let drawTool: DrawTool = 'select';
  draw.setMode('select');

  const listeners: Array<() => void> = [];
  const changed = () => listeners.forEach((l) => l());
  draw.on('finish', changed);
  draw.on('change', (_ids, type) => {
    if (type === 'delete') changed();
  });

  const geometries = (): DrawnGeometry[] =>
    draw
      .getSnapshot()
      .filter((f) => f.geometry.type === 'Point' || f.geometry.type === 'Polygon')
      .filter((f) => !f.properties?.currentlyDrawing)
      .map((f) => ({
        id: String(f.id),
        kind: f.geometry.type === 'Point' ? 'point' : 'polygon',
        coordinates: (f.geometry.type === 'Point' ? f.geometry.coordinates : f.geometry.coordinates) as
          | Position
          | PolygonCoords,
        ...(typeof f.properties?.name === 'string' ? { name: f.properties.name } : {}),
      }));

  return {
    map,
    draw,
    geometries,
    setTool(tool) {
      drawTool = tool;
      draw.setMode(tool);
    },
    deleteSelected() {
      const selected = draw.getSnapshot().filter((f) => f.properties?.selected);
      if (selected.length) {
        draw.removeFeatures(selected.map((f) => f.id!));
        changed();
      }
    },
    clear() {
      draw.clear();
      changed();
    },
    load(gs) {
      draw.clear();
      if (!gs.length) return [];
      // terra-draw refuses, silently, coordinates with more than 9 decimals (its precision): a map
      // centre or a GIS export has 15. Nine decimals are 0.1 mm.
      const r9 = (p: Position): Position => [Math.round(p[0] * 1e9) / 1e9, Math.round(p[1] * 1e9) / 1e9];
      const results = draw.addFeatures(
        gs.map((g) => ({
          type: 'Feature',
          geometry:
            g.kind === 'point'
              ? { type: 'Point', coordinates: r9(g.coordinates as Position) }
              : { type: 'Polygon', coordinates: (g.coordinates as PolygonCoords).map((ring) => ring.map(r9)) },
          properties: { mode: g.kind, ...(g.name ? { name: g.name } : {}) },
        })),
      );
      return results.flatMap((r, i) =>
        r.valid ? [] : [`${gs[i]!.name ?? `shape ${i + 1}`}: ${r.reason ?? 'refused by the map'}`],
      );
    },
    markTooLarge(ids) {
      const set = new Set(ids);
      const features = geometries()
        .filter((g) => set.has(g.id))
        .map((g) => ({
          type: 'Feature' as const,
          geometry: { type: 'Polygon' as const, coordinates: g.coordinates as PolygonCoords },
          properties: {},
        }));
      (map.getSource(ID['too-large']) as import('maplibre-gl').GeoJSONSource).setData({
        type: 'FeatureCollection',
        features,
      });
      // Above terra-draw's own layers, which it adds after ours.
      map.moveLayer(ID['too-large']);
    },
    showPreview(canvas, bbox) {
      if (map.getLayer(ID.preview)) map.removeLayer(ID.preview);
      if (map.getSource(ID.preview)) map.removeSource(ID.preview);
      if (!canvas || !bbox) return;
      const [w, s, e, n] = bbox;
      map.addSource(ID.preview, {
        type: 'image',
        url: canvas.toDataURL('image/png'),
        coordinates: [
          [w, n],
          [e, n],
          [e, s],
          [w, s],
        ],
      });
      map.addLayer(
        {
          id: ID.preview,
          type: 'raster',
          source: ID.preview,
          paint: { 'raster-opacity': 0.75, 'raster-resampling': 'nearest' },
        },
        ID.stations,
      );
    },
    onChange(listener) {
      listeners.push(listener);
    },
    setSavedShapes(items) {
      // One shape seen in several answers is outlined once, under its latest label.
      const seen = new Set<string>();
      const features = [];
      for (const { geometry: g, label } of items) {
        const key = JSON.stringify(g.coordinates);
        if (seen.has(key)) continue;
        seen.add(key);
        features.push({
          type: 'Feature' as const,
          geometry:
            g.kind === 'point'
              ? { type: 'Point' as const, coordinates: g.coordinates as Position }
              : { type: 'Polygon' as const, coordinates: g.coordinates as PolygonCoords },
          properties: { label },
        });
      }
      (map.getSource(ID['saved-shapes']) as GeoJSONSource).setData({ type: 'FeatureCollection', features });
    },
    setLabels(items) {
      (map.getSource(ID['geometry-labels']) as GeoJSONSource).setData({
        type: 'FeatureCollection',
        features: items.map((i) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [i.lon, i.lat] },
          properties: { label: i.label },
        })),
      });
      if (map.getLayer(ID['geometry-labels'])) map.moveLayer(ID['geometry-labels']);
    },
    showAnswer(links) {
      (map.getSource(ID.answer) as GeoJSONSource).setData({
        type: 'FeatureCollection',
        features: links.flatMap((l) => [
          {
            type: 'Feature' as const,
            geometry: { type: 'LineString' as const, coordinates: [l.from, l.station] },
            properties: {},
          },
          { type: 'Feature' as const, geometry: { type: 'Point' as const, coordinates: l.station }, properties: {} },
        ]),
      });
    },
    setBasemap,
    onBasemapFallback(listener) {
      fallbackListeners.push(listener);
    },
    goTo(target) {
      searchMarker?.remove();
      // The pin and its name never take a click: a grower clicks on or just below the found place
      // to draw there, and the click must reach the map (the drawing tool) as anywhere else.
      searchMarker = new Marker({ color: '#f0b429', className: 'search-pin' })
        .setLngLat([target.lon, target.lat])
        .setPopup(
          new Popup({ offset: 30, closeButton: false, closeOnClick: false, className: 'search-pin' }).setText(
            target.label,
          ),
        )
        .addTo(map);
      searchMarker.togglePopup();
      map.jumpTo({ center: [target.lon, target.lat], zoom: target.zoom });
    },
  };
}

/** The app's name for each of its sources and layers: `climate-query:<name>`, numbered when a style has it already. */
function ownIds<N extends string>(map: MapLibreMap, names: readonly N[]): Record<N, string> {
  const taken = (id: string) => Boolean(map.getSource(id) || map.getLayer(id));
  const out = {} as Record<N, string>;
  for (const n of names) {
    let id = `climate-query:${n}`;
    for (let k = 2; taken(id); k++) id = `climate-query:${n}#${k}`;
    out[n] = id;
  }
  return out;
}
