/**
 * The tools over the map (`#map-tools`): find a town or coordinates, and
 * choose the basemap (the bundled offline map, or online tiles a person
 * picks; a basemap that fails falls back to the offline one and says so).
 * At farm zoom the offline map has towns only: a line says that detail
 * needs a connection, and the shapes of saved answers stay outlined on the
 * map, named, for a grower to find their fields by (docs/basemaps.md).
 */
import { ONLINE_BASEMAPS, type OnlineBasemap, type Place } from './basemap.ts';
import type { MapView } from './map-view.ts';
import type { SavedAnswer } from './saved-store.ts';
import { type Panel, type PanelContext, type PanelFactory, part } from './panel.ts';
import { type Found, parseCoordinates, searchPlaces } from './place-search.ts';

/** The map tools over `view`, with the bundled `places`; `initial` is the URL's basemap, `waiting` an Enter pressed before the app was up. */
export function mapToolsPanel(
  view: MapView,
  places: readonly Place[],
  initial: OnlineBasemap | null,
  waiting: () => boolean,
): PanelFactory {
  return (ctx: PanelContext): Panel => {
    const $ = <T extends HTMLElement = HTMLElement>(id: string) => part<T>(ctx.root, id);
    let current: OnlineBasemap | null = null;
    /** Past this zoom the bundled map shows no more than towns (it has no roads or farms). */
    const sayDetail = () => {
      const bare = current === null && view.map.getZoom() >= OFFLINE_DETAIL_ZOOM;
      const saved = ctx.store.get().saved.length > 0;
      $('map-detail').textContent = bare
        ? `The offline map shows towns only at this zoom: roads and farms need a connection (Basemap: Street map or Satellite).${saved ? ' Shapes you saved are outlined in grey.' : ''}`
        : '';
    };
    view.map.on('zoomend', sayDetail);
    {
      const choices = [null, ...ONLINE_BASEMAPS, ...(initial && !ONLINE_BASEMAPS.includes(initial) ? [initial] : [])];
      const select = $<HTMLSelectElement>('basemap');
      select.replaceChildren(
        ...choices.map(
          (b) => new Option(b ? b.title : 'Offline map (bundled)', b?.id ?? 'offline', false, b === initial),
        ),
      );
      const apply = (b: OnlineBasemap | null) => {
        $('map-notice').textContent = '';
        view.setBasemap(b);
        current = b;
        sayDetail();
      };
      select.addEventListener('change', () => {
        const b = choices.find((c) => (c?.id ?? 'offline') === select.value) ?? null;
        apply(b);
        // The choice is part of the shareable URL.
        const q = new URLSearchParams(location.search);
        if (b && b.id !== 'custom') q.set('basemap', b.id);
        else if (!b) q.delete('basemap');
        history.replaceState(null, '', `${location.pathname}${q.size ? `?${q}` : ''}${location.hash}`);
      });
      view.onBasemapFallback((failed) => {
        select.value = 'offline';
        current = null;
        sayDetail();
        $('map-notice').textContent =
          `${failed.title} could not be loaded (no connection, or the tile server refused): showing the offline map.`;
      });
      apply(initial);
    }

    {
      const input = $<HTMLInputElement>('find-input');
      const list = $('find-results');
      const message = $('find-message');
      let found: Found[] = [];
      const go = (f: Found) => {
        view.goTo(f);
        list.replaceChildren();
        message.textContent = `Showing ${f.label}.`;
      };
      const suggest = () => {
        const coords = parseCoordinates(input.value);
        found = coords ? [coords] : searchPlaces(places, input.value);
        list.replaceChildren(
          ...found.map((f) => {
            const li = document.createElement('li');
            const b = document.createElement('button');
            b.type = 'button';
            b.textContent = f.label;
            b.addEventListener('click', () => go(f));
            li.append(b);
            return li;
          }),
        );
        message.textContent = '';
      };
      input.addEventListener('input', suggest);
      input.addEventListener('keydown', (e) => {
        if (e.key === 'ArrowDown') list.querySelector('button')?.focus();
        if (e.key === 'Escape') list.replaceChildren();
      });
      list.addEventListener('keydown', (e) => {
        const items = [...list.querySelectorAll('button')];
        const i = items.indexOf(document.activeElement as HTMLButtonElement);
        if (e.key === 'ArrowDown') items[Math.min(i + 1, items.length - 1)]?.focus();
        if (e.key === 'ArrowUp') (i <= 0 ? input : items[i - 1])?.focus();
      });
      const find = () => {
        suggest();
        if (found[0]) go(found[0]);
        else
          message.textContent = input.value.trim()
            ? `No town called "${input.value.trim()}" in the bundled list, and not coordinates. Try a nearby town, or type latitude, longitude (e.g. -33.93, 18.87).`
            : '';
      };
      // The early listener (top of this module) only keeps the page; from now on Enter finds.
      $('find').addEventListener('submit', (e) => {
        e.preventDefault();
        find();
      });
      if (waiting()) find();
    }
    const showSaved = (saved: readonly SavedAnswer[]) => {
      view.setSavedShapes(savedShapes(saved));
      sayDetail();
    };
    showSaved(ctx.store.get().saved);
    return {
      update(state, previous) {
        if (state.saved !== previous.saved) showSaved(state.saved);
      },
      dispose: () => view.map.off('zoomend', sayDetail),
    };
  };
}

/** The zoom from which the bundled map is bare (towns only): about 20 km across a phone's screen. */
export const OFFLINE_DETAIL_ZOOM = 11;

/** The saved answers' shapes, each named by the name it came with, else by the day it was saved. */
export function savedShapes(
  saved: readonly SavedAnswer[],
): Array<{ geometry: SavedAnswer['geometries'][number]; label: string }> {
  return saved.flatMap((item) =>
    item.geometries.map((geometry) => ({
      geometry,
      label: geometry.name ?? `Saved ${item.savedAt.slice(0, 10)}`,
    })),
  );
}
