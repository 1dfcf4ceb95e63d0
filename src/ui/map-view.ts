/**
 * The map: an offline basemap (bundled Natural Earth provinces; no tile
 * server is reachable offline), the weather stations with popups, drawing
 * with terra-draw, polygons over 2 km² outlined in red, and the raster
 * preview as an image layer. No text labels: they would need a glyph
 * server, so names and areas live in the side panel and popups.
 */
import { Map as MapLibreMap, Popup, setWorkerUrl, type StyleSpecification } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import maplibreWorkerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { TerraDraw, TerraDrawPointMode, TerraDrawPolygonMode, TerraDrawRectangleMode, TerraDrawSelectMode } from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import provincesUrl from '../../data-sources/za-provinces-naturalearth-10m.geojson?url';
import type { Catalog } from '../dataset/catalog.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import type { PolygonCoords, Position } from '../contract/wkt.ts';
import type { DrawnGeometry } from './query-model.ts';

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
  /** Replaces the drawn geometries (URL state). */
  load(geometries: DrawnGeometry[]): void;
  /** Outlines these polygons as over the limit. */
  markTooLarge(ids: string[]): void;
  showPreview(image: HTMLCanvasElement | null, bbox?: [number, number, number, number]): void;
  onChange(listener: () => void): void;
}

function offlineStyle(): StyleSpecification {
  return {
    version: 8,
    sources: { provinces: { type: 'geojson', data: new URL(provincesUrl, location.href).href } },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#cbdde8' } },
      { id: 'land', type: 'fill', source: 'provinces', paint: { 'fill-color': '#f3efe6' } },
      { id: 'borders', type: 'line', source: 'provinces', paint: { 'line-color': '#a1927c', 'line-width': 0.8 } },
    ],
  };
}

function yearsOf(s: IndexedStation): string {
  const parts: string[] = [];
  for (const [scale, file] of Object.entries(s.files)) {
    const first = file.first.slice(0, 4);
    const last = file.last.slice(0, 4);
    parts.push(`${scale} ${first === last ? first : `${first}–${last}`}`);
  }
  return parts.join(', ') || 'no data';
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * Creates the map in `container`. Resolves when the style and stations are
 * loaded and drawing is ready. `stations` comes from the station index (the
 * catalog only points to it).
 */
export async function createMapView(container: HTMLElement, catalog: Catalog, styleUrl?: string, stations: readonly IndexedStation[] = []): Promise<MapView> {
  const map = new MapLibreMap({
    container,
    style: styleUrl ?? offlineStyle(),
    bounds: [17.6, -35.0, 24.4, -30.3],
    attributionControl: { compact: true, customAttribution: 'Natural Earth; NOAA ISD station positions; synthetic demo data' },
  });
  await new Promise<void>((resolve) => map.once('load', () => resolve()));

  map.addSource('stations', {
    type: 'geojson',
    data: {
      type: 'FeatureCollection',
      features: stations.map((s) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [s.lon, s.lat] }, properties: { id: s.id } })),
    },
  });
  map.addLayer({ id: 'stations', type: 'circle', source: 'stations', paint: { 'circle-radius': 4, 'circle-color': '#1d5f8a', 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 } });
  map.addSource('too-large', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({ id: 'too-large', type: 'line', source: 'too-large', paint: { 'line-color': '#c62828', 'line-width': 3, 'line-dasharray': [2, 1] } });

  const byId = new Map(stations.map((s) => [s.id, s]));
  map.on('click', 'stations', (e) => {
    if (drawTool !== 'select') return;
    const id = e.features?.[0]?.properties?.id as string | undefined;
    const s = id ? byId.get(id) : undefined;
    if (!s) return;
    new Popup()
      .setLngLat([s.lon, s.lat])
      .setHTML(`<strong>${escapeHtml(s.name)}</strong><br>${s.elevation === null ? 'elevation unknown' : `${s.elevation} m`}<br>${escapeHtml(yearsOf(s))}`)
      .addTo(map);
  });

  const draw = new TerraDraw({
    adapter: new TerraDrawMapLibreGLAdapter({ map }),
    modes: [
      new TerraDrawPointMode(),
      new TerraDrawPolygonMode(),
      new TerraDrawRectangleMode(),
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
        coordinates: (f.geometry.type === 'Point' ? f.geometry.coordinates : f.geometry.coordinates) as Position | PolygonCoords,
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
      if (!gs.length) return;
      draw.addFeatures(
        gs.map((g) => ({
          type: 'Feature',
          geometry: g.kind === 'point' ? { type: 'Point', coordinates: g.coordinates as Position } : { type: 'Polygon', coordinates: g.coordinates as PolygonCoords },
          properties: { mode: g.kind },
        })),
      );
    },
    markTooLarge(ids) {
      const set = new Set(ids);
      const features = geometries()
        .filter((g) => set.has(g.id))
        .map((g) => ({ type: 'Feature' as const, geometry: { type: 'Polygon' as const, coordinates: g.coordinates as PolygonCoords }, properties: {} }));
      (map.getSource('too-large') as import('maplibre-gl').GeoJSONSource).setData({ type: 'FeatureCollection', features });
      // Above terra-draw's own layers, which it adds after ours.
      map.moveLayer('too-large');
    },
    showPreview(canvas, bbox) {
      if (map.getLayer('preview')) map.removeLayer('preview');
      if (map.getSource('preview')) map.removeSource('preview');
      if (!canvas || !bbox) return;
      const [w, s, e, n] = bbox;
      map.addSource('preview', { type: 'image', url: canvas.toDataURL('image/png'), coordinates: [[w, n], [e, n], [e, s], [w, s]] });
      map.addLayer({ id: 'preview', type: 'raster', source: 'preview', paint: { 'raster-opacity': 0.75, 'raster-resampling': 'nearest' } }, 'stations');
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
