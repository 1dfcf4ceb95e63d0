/**
 * What panels ask the app to do: run the query the store describes (in the
 * engine Worker), cancel it, show a saved answer, replace what is drawn, and
 * save a file. Each writes its outcome into the store; the panels draw it.
 */
import { CSV_BOM } from '../contract/csv.ts';
import type { EngineClient } from '../browser/engine-client.ts';
import { ClimateQueryError, type ErrorBody } from '../contract/errors.ts';
import type { Endpoint } from '../contract/types.ts';
import { layersOf, validateRequest } from './form-rules.ts';
import type { MapView } from './map-view.ts';
import type { AppActions } from './panel.ts';
import { buildRequest, type DrawnGeometry, endpointFor } from './query-request.ts';
import { toTable } from './result-table.ts';
import type { SavedAnswer } from './saved-store.ts';
import { savedTimeLabel } from './saved-summary.ts';
import type { AppRequest, AppStore, ShownAnswer } from './store.ts';
import { errorOf, plainError } from './words.ts';

/** What the actions work with. */
export interface ActionDeps {
  store: AppStore;
  engine: EngineClient;
  map(): MapView | undefined;
  /** Settles once the dataset has loaded (a Run before that waits for it). */
  ready(): Promise<void>;
}

/** The status of an empty answer, by its real reason (the results panel says more, and how to go on). */
function emptyStatus(req: AppRequest, answer: unknown): string {
  if (
    req.endpoint === 'poly-aggregate' &&
    Object.keys((answer as { stations_metadata?: object }).stations_metadata ?? {}).length === 0
  )
    return 'Empty: no station with records lies inside this field';
  if (req.endpoint === 'point' || req.endpoint === 'polygon')
    return 'Empty: the layer has no value here for these dates';
  return 'Empty: the station has no records for these dates';
}

/** The answer as the panels show it: its table, and whether it holds any value. */
function shownAnswer(
  deps: ActionDeps,
  request: AppRequest,
  answer: unknown,
  origin: ShownAnswer['origin'],
  savedAt?: string,
): ShownAnswer {
  const table = toTable(request.endpoint, request.body, answer, layersOf(deps.store.get().dataset));
  // Station counts of 0 are not values: a field with no station inside is empty too.
  const empty = table.series.every((s) => s.unit === 'stations' || s.values.every((v) => v === null));
  return { request, answer, table, empty, origin, ...(savedAt ? { savedAt } : {}) };
}

/** Creates the app's actions over a store and an engine client. */
export function createActions(deps: ActionDeps): AppActions {
  const { store, engine } = deps;
  let running: AbortController | null = null;

  // "Not run: Field G1 has an area of 4.1 km²…" describes the question as it was: once the shapes or
  // the form change it is gone (the form shows the new question's own errors as they are typed).
  store.subscribe((s, p) => {
    if (
      s.status.startsWith('Not run:') &&
      s.status === p.status &&
      (s.form !== p.form || s.geometries !== p.geometries)
    )
      store.set({ status: '' });
  });

  async function run(): Promise<void> {
    const state = store.get();
    if (!state.dataset) {
      // A Run (or Enter) before the dataset arrived runs once it has.
      await deps.ready().catch(() => undefined);
      if (!store.get().dataset) return;
      return run();
    }
    const req = buildRequest(state.form, state.geometries, layersOf(state.dataset));
    if (!req) {
      store.set({
        error: { field: '/wkts', message: 'Draw at least one point or field on the map first.' },
        status: 'Not run: draw a point or field on the map first.',
      });
      return;
    }
    try {
      validateRequest(state.dataset, req.endpoint, req.body);
    } catch (e) {
      if (!(e instanceof ClimateQueryError)) throw e;
      // Beside Run too: a click on Run always runs or says why not.
      const kind = endpointFor(state.form, state.geometries)?.used[0]?.kind ?? null;
      store.set({
        error: errorOf(e),
        status: `Not run: ${plainError(e, kind)}`,
      });
      return;
    }
    running?.abort();
    const controller = new AbortController();
    running = controller;
    const started = performance.now();
    store.set({ shown: null, running: true, status: 'Running…', error: null, unreachable: null });
    const tick = setInterval(
      () => store.set({ status: `Running… ${((performance.now() - started) / 1000).toFixed(1)} s` }),
      100,
    );
    const res = await engine.handle(
      { method: 'POST', path: req.path, body: JSON.stringify(req.body) },
      { signal: controller.signal },
    );
    clearInterval(tick);
    // A newer run, or a saved answer opened meanwhile, owns the screen now.
    if (running !== controller) return;
    running = null;
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    if (res.status !== 200) {
      const { error } = res.body as ErrorBody;
      const lost = error.code === 'dataset_unavailable' || error.code === 'upstream_timeout';
      store.set({
        running: false,
        status: error.code === 'aborted' ? 'Cancelled.' : `Failed after ${seconds} s.`,
        error: error.code === 'aborted' ? null : errorOf(error),
        unreachable: lost ? req : null,
      });
      return;
    }
    const shown = shownAnswer(deps, req, res.body, 'run');
    store.set({
      running: false,
      shown,
      status: shown.empty ? `${emptyStatus(req, res.body)} (${seconds} s).` : `Answered in ${seconds} s.`,
    });
  }

  function loadGeometries(geometries: DrawnGeometry[]): string[] {
    const view = deps.map();
    if (!view) return [];
    const refused = view.load(geometries);
    store.set({ geometries: view.geometries() });
    return refused;
  }

  function openSaved(item: SavedAnswer, status?: string): void {
    // The list is up before the map; a click in between waits for the next one.
    const view = deps.map();
    if (!view) return;
    running?.abort();
    running = null;
    store.set({ form: { ...item.form } });
    loadGeometries(item.geometries);
    const pts = item.geometries.flatMap((g) =>
      g.kind === 'point' ? [g.coordinates as [number, number]] : (g.coordinates as Array<Array<[number, number]>>)[0]!,
    );
    if (pts.length) {
      const lons = pts.map((p) => p[0]);
      const lats = pts.map((p) => p[1]);
      view.map.fitBounds(
        [
          [Math.min(...lons), Math.min(...lats)],
          [Math.max(...lons), Math.max(...lats)],
        ],
        { padding: 80, maxZoom: 9, duration: 0 },
      );
    }
    const request = { ...item.request, endpoint: item.request.endpoint as Endpoint };
    store.set({
      running: false,
      error: null,
      shown: shownAnswer(deps, request, item.answer, 'saved', item.savedAt),
      status: status ?? `Saved answer from ${savedTimeLabel(item.savedAt)}, shown from this device.`,
    });
  }

  function download(name: string, type: string, text: string): void {
    // A CSV starts with the byte-order mark: a spreadsheet that guesses the encoding then reads UTF-8.
    const body = type === 'text/csv' && !text.startsWith(CSV_BOM) ? CSV_BOM + text : text;
    const url = URL.createObjectURL(new Blob([body], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  return { run, cancel: () => running?.abort(), openSaved, loadGeometries, download };
}
