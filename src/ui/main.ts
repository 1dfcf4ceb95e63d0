/**
 * The map app, as composition: one engine Worker, one store, and the panels
 * mounted over them (form, developer, results, season, chill and heat, saved
 * answers, SQL, map tools). The page reads no dataset file itself but the
 * catalog and the station index, which its engine client reads for the
 * Worker as the page starts; the station list, answers and layer previews
 * come from the Worker.
 */
import type { ClimateQueryError } from '../contract/errors.ts';
import { createEngineClient } from '../browser/engine-client.ts';
import { keepForOffline } from '../browser/keep-offline.ts';
import { registerClimateServiceWorker } from '../browser/service-worker-client.ts';
import { urlLocation } from '../dataset/location.ts';
import { createActions } from './app-actions.ts';
import { basemapFromUrl, loadPlaces } from './basemap.ts';
import { datasetBounds } from './dataset-info.ts';
import { DATA_ADVICE, DEMO_ADVICE, datasetErrorText, rangeWarningText } from './dataset-words.ts';
import { developerPanel } from './developer-panel.ts';
import { formPanel, typedDates } from './form-panel.ts';
import { currentScale, defaultForm } from './form-rules.ts';
import { indicesPanel } from './indices-view.ts';
import { mapToolsPanel } from './map-tools-panel.ts';
import { createMapView, type MapView } from './map-view.ts';
import { mountPanels, type PanelContext } from './panel.ts';
import { DEFAULT_FORM } from './query-request.ts';
import { decodeState } from './url-codec.ts';
import { resultsPanel } from './results-panel.ts';
import { savedPanel } from './saved-list.ts';
import { seasonPanel } from './season-view.ts';
import { sqlPanel } from './sql-panel.ts';
import { createStore, type AppDataset } from './store.ts';
import { syncUrl } from './url-state.ts';

const $ = (id: string) => document.getElementById(id)!;
const params = new URLSearchParams(location.search);
const datasetUrl = new URL(params.get('data') ?? './data/demo/', location.href).href;

const worker = new Worker(new URL('../worker/engine-worker.ts', import.meta.url), {
  type: 'module',
  name: 'climate-query-engine',
});
// DuckDB-WASM is imported only when the SQL panel first runs a query.
const engine = createEngineClient({
  dataset: datasetUrl,
  worker,
  sqlRunner: () => import('./duckdb-runner.ts').then((m) => m.appSqlRunner()),
});
const store = createStore({
  dataset: null,
  form: { ...DEFAULT_FORM },
  geometries: [],
  shown: null,
  running: false,
  status: '',
  error: null,
  unreachable: null,
  saved: [],
});
let view: MapView | undefined;

/** The console handle (window.cqUi): the store's state by name, and what panels expose. */
const ui: Record<string, unknown> & { ready: Promise<void>; panels: string[] } = {
  ready: Promise.resolve(),
  panels: [],
  engine,
  store,
};
for (const [name, read] of Object.entries({
  form: () => store.get().form,
  lastRequest: () => store.get().shown?.request,
  lastAnswer: () => store.get().shown?.answer,
  table: () => store.get().shown?.table,
  view: () => view,
}))
  Object.defineProperty(ui, name, { get: read, enumerable: true });
(window as unknown as { cqUi: typeof ui }).cqUi = ui;

const actions = createActions({ store, engine, map: () => view, ready: () => ui.ready });
const context: Omit<PanelContext, 'root'> = {
  store,
  engine,
  actions,
  map: () => view,
  expose: (name, read) => Object.defineProperty(ui, name, { get: read, enumerable: true, configurable: true }),
};

// The service worker lets other code on this site use plain fetch('./api/…/') and opens the app
// offline. Registered first, before anything that may fail on a host (a map worker served with the
// wrong type stopped start-up before the registration on nginx's defaults), so it is always there.
const serviceWorker: Promise<ServiceWorkerRegistration | undefined> | null =
  'serviceWorker' in navigator && params.get('sw') !== '0'
    ? registerClimateServiceWorker({ scriptUrl: new URL('./sw.js', location.href).href, engine }).catch(() => undefined)
    : null;

// Both forms answer Enter from the first paint: a native submit before the panels were mounted
// reloaded the page to "index.html?" and lost what was typed. Until then the request waits.
let started = false;
let findWaiting = Boolean($('find').dataset.waiting);
$('controls').addEventListener('submit', (e) => {
  e.preventDefault();
  // Once mounted, the form panel runs it.
  if (ui.panels.includes('form')) return;
  $('status').textContent = 'The app is still loading; the query runs as soon as it is ready.';
  void ui.ready.then(
    () => actions.run(),
    () => undefined,
  );
});
$('find').addEventListener('submit', (e) => {
  e.preventDefault();
  if (started) return;
  findWaiting = true;
  $('find-message').textContent = 'Finding it as soon as the map has loaded…';
});

// The gazetteer (the map's town labels and the place search) does not depend on the dataset: asked
// as the page starts, beside the catalog, rather than one round trip after it (a farm's link: 0.3 s
// and more each). Awaited where the map needs it; a failure surfaces there as before.
const placesLoading = loadPlaces();
placesLoading.catch(() => undefined);

/** The catalog and the station list, from the engine Worker. */
async function loadDataset(): Promise<AppDataset> {
  // Asked together with the catalog, not after it: the engine client then reads the station index
  // ahead with the catalog (browser/engine-client.ts readAhead) instead of the Worker reading it
  // once it has the catalog. A dataset without stations refuses this ask; then it is not awaited.
  const stations = engine.stations();
  stations.catch(() => undefined);
  try {
    const catalog = await engine.catalog();
    return { url: datasetUrl, catalog, stations: catalog.stations ? await stations : [] };
  } catch (e) {
    throw new Error(datasetErrorText(e as ClimateQueryError, params.has('data') ? DATA_ADVICE : DEMO_ADVICE), {
      cause: e,
    });
  }
}

async function start(): Promise<void> {
  const dataset = await loadDataset();
  // A host without Range support still answers (whole files): a warning, not an error.
  void engine.rangeSupport().then(
    (r) => ($('data-warning').textContent = r === false ? rangeWarningText(datasetUrl) : ''),
    () => undefined,
  );
  // The dataset's own warning (the demo: synthetic weather), above every answer, so no number is read as a measurement.
  $('dataset-notice').textContent = dataset.catalog.notice ?? '';
  const first = defaultForm(dataset);
  const form = decodeState(location.hash)?.form ?? {
    ...first,
    ...typedDates($('controls'), currentScale(dataset, first)),
  };
  store.set({ dataset, form });
  // Before the map: its first moveend rewrites the URL, which must not happen before the hash is applied.
  const panels = mountPanels(context, [
    { name: 'form', root: $('controls'), factory: formPanel },
    { name: 'developer', root: $('developer'), factory: developerPanel },
    { name: 'results', root: $('results'), factory: resultsPanel },
    { name: 'season', root: $('results'), factory: seasonPanel },
    { name: 'indices', root: $('results'), factory: indicesPanel },
    { name: 'saved', root: $('results'), factory: savedPanel },
    { name: 'sql', root: $('results'), factory: sqlPanel },
  ]);
  ui.panels.push(...panels.names);
  await panels.ready;
  const places = await placesLoading;
  const map = await createMapView($('map'), dataset.catalog, {
    styleUrl: params.get('style') ?? undefined,
    places,
    bounds: datasetBounds(dataset.catalog, dataset.stations),
    stations: dataset.stations,
  });
  view = map;
  map.onChange(() => store.set({ geometries: map.geometries() }));
  const tools = mountPanels(context, [
    {
      name: 'map-tools',
      root: $('map-tools'),
      factory: mapToolsPanel(map, places, basemapFromUrl(params), () => findWaiting),
    },
  ]);
  ui.panels.push(...tools.names);
  started = true;
  syncUrl(store, map, actions);
  if (serviceWorker) {
    // Once it controls the page, it keeps the files the app starts from, for offline visits.
    const files = urlLocation(datasetUrl);
    const startFiles = [
      files.resolve('catalog.json'),
      ...(dataset.catalog.stations ? [files.resolve(dataset.catalog.stations.index)] : []),
    ];
    ui.offline = serviceWorker
      .then((registration) => (registration ? keepForOffline(startFiles) : undefined))
      .catch(() => undefined);
  }
}

ui.ready = start().catch((e: unknown) => {
  // At the top of the page: nothing else works without the dataset.
  $('data-error').textContent = (e as Error).message;
  throw e;
});
