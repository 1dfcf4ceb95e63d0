/**
 * The URL holds the query, the geometries and the map view, so a shared
 * link or a reload shows the same thing. Written on every change of form,
 * geometries or view; a hash changed by hand (a pasted link, Back) applies
 * at once and runs the query when it is complete.
 */
import type { AppActions } from './panel.ts';
import { layersOf } from './form-rules.ts';
import type { MapView } from './map-view.ts';
import { buildRequest } from './query-request.ts';
import { decodeState, decodeView, encodeState, encodeView } from './url-codec.ts';
import type { AppStore } from './store.ts';

/** Keeps the URL and the store in step; applies the current hash first. Returns the function that stops it. */
export function syncUrl(store: AppStore, view: MapView, actions: AppActions): () => void {
  let lastHash = '';
  const write = () => {
    const { form, geometries } = store.get();
    const c = view.map.getCenter();
    lastHash = `${encodeState(form, geometries)}&${encodeView({ zoom: view.map.getZoom(), lat: c.lat, lon: c.lng })}`;
    history.replaceState(null, '', `${location.pathname}${location.search}${lastHash}`);
  };
  const apply = (hash: string) => {
    const restored = decodeState(hash);
    const v = decodeView(hash);
    if (v) view.map.jumpTo({ center: [v.lon, v.lat], zoom: v.zoom });
    if (!restored) return;
    store.set({ form: restored.form });
    actions.loadGeometries(restored.geometries);
    const { form, geometries, dataset } = store.get();
    if (restored.geometries.length && buildRequest(form, geometries, layersOf(dataset))) void actions.run();
  };
  // Applied before the map's first moveend, which would write a URL without the hash's geometries.
  if (location.hash) apply(location.hash);
  const stop = store.subscribe((s, p) => {
    if (s.form !== p.form || s.geometries !== p.geometries) write();
  });
  view.map.on('moveend', write);
  // Our own writes are ignored.
  const onHash = () => {
    if (location.hash !== lastHash) apply(location.hash);
  };
  window.addEventListener('hashchange', onHash);
  return () => {
    stop();
    view.map.off('moveend', write);
    window.removeEventListener('hashchange', onHash);
  };
}
