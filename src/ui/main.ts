/**
 * The map app: draw points or fields, choose station records or a climate
 * layer, run the query in the engine Worker, and see a chart, a table and
 * the metadata. The form is validated with the contract's own validators
 * before anything is sent, so errors appear next to their control at once.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { createEngineClient } from '../browser/engine-client.ts';
import { keepForOffline } from '../browser/keep-offline.ts';
import { registerClimateServiceWorker } from '../browser/service-worker-client.ts';
import { ClimateQueryError, type ErrorBody } from '../contract/errors.ts';
import { MAX_PERIODS, parseRange, type TimeScale } from '../contract/periods.ts';
import { MAX_POLYGON_AREA_M2 } from '../contract/raster-layers.ts';
import { STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import { clipToHeld, switchScale, type ScaleSwitch } from './scale-switch.ts';
import type { Endpoint } from '../contract/types.ts';
import { VALIDATORS, validatePoint, validatePolygon } from '../contract/validate.ts';
import { stationsUtcOffset, type Catalog, type RasterLayerEntry } from '../dataset/catalog.ts';
import { utcOffsetLabel } from '../contract/utc-offset.ts';
import { urlLocation } from '../dataset/location.ts';
import { parseStationIndex, type IndexedStation } from '../stations/station-index.ts';
import { ONLINE_BASEMAPS, basemapFromUrl, loadPlaces, type OnlineBasemap, type Place } from './basemap.ts';
import { FAR_STATION_KM, answeringStations, datasetBounds, defaultStationDates, heldRange, placeWarning, sqlDefaultDays } from './dataset-info.ts';
import { mountSqlPanel } from './sql-panel.ts';
import { fetchChecked, loadCatalog, rangeWarning } from './dataset-load.ts';
import { renderDeveloperPanel, setUpCopyButtons, showRawError } from './developer-panel.ts';
import { dateInputAttrs, fromDateInput, toDateInput } from './date-input.ts';
import { askText, layerDefinition, layerName, plainError, stationWords, subTypeName, withUnit } from './words.ts';
import { createMapView, type DrawTool, type MapView } from './map-view.ts';
import { parseCoordinates, searchPlaces, type Found } from './place-search.ts';
import { createSavedList, type SavedList } from './saved-list.ts';
import type { SavedAnswer } from './saved-store.ts';
import { savedTimeLabel } from './saved-summary.ts';
import { createSeasonView, type SeasonView } from './season-view.ts';
import { createIndicesView, type IndicesView } from './indices-view.ts';
import { boundsOf, readShapeText } from './shape-text.ts';
import {
  DEFAULT_FORM, MONTHS, areaOf, buildRequest, decodeState, seriesDecimals, decodeView, encodeState, encodeView, endpointFor, formatValue, isSum, isTimeAxis, periodLabel, toCsv, toTable, xOf, downloadName, seriesHeading,
  type FormState, type ResultTable,
} from './query-model.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);
const datasetUrl = new URL(params.get('data') ?? './data/demo/', location.href).href;
/** The one rule for a dataset file's URL (encoding, confinement), the engine's own. */
const datasetFiles = urlLocation(datasetUrl);

const worker = new Worker(new URL('../worker/engine-worker.ts', import.meta.url), { type: 'module', name: 'climate-query-engine' });
// DuckDB-WASM is imported only when the SQL panel first runs a query.
const engine = createEngineClient({ dataset: datasetUrl, worker, sqlRunner: () => import('./duckdb-runner.ts').then((m) => m.appSqlRunner()) });

/** What tests and curious users can inspect from the console. */
interface UiHandle {
  ready: Promise<void>;
  view?: MapView;
  form: FormState;
  lastRequest?: { endpoint: Endpoint; path: string; body: Record<string, unknown> };
  lastAnswer?: unknown;
  table?: ResultTable;
  chartData?: Array<Array<number | null>>;
  /** The uPlot chart on screen. */
  chart?: uPlot;
  engine: typeof engine;
  /** The answers kept on this device. */
  saved?: SavedList;
  /** The year against the other years, under the chart. */
  season?: SeasonView;
  indices?: IndicesView;
  /** Settles once the service worker controls the page and has kept the dataset's start files. */
  offline?: Promise<unknown>;
}
const ui: UiHandle = { ready: Promise.resolve(), form: { ...DEFAULT_FORM }, engine };
(window as unknown as { cqUi: UiHandle }).cqUi = ui;

// The service worker lets other code on this site use plain fetch('./api/…/') and opens the app
// offline. Registered first, before anything that may fail on a host (a map worker served with the
// wrong type stopped start-up before the registration on nginx's defaults), so it is always there.
const serviceWorker: Promise<ServiceWorkerRegistration | undefined> | null =
  'serviceWorker' in navigator && params.get('sw') !== '0'
    ? registerClimateServiceWorker({ scriptUrl: new URL('./sw.js', location.href).href, engine }).catch(() => undefined)
    : null;

// Both forms answer Enter from the first paint: a native submit before start() finished reloaded
// the page to "index.html?" and lost what was typed. Until the app is ready the request waits.
let started = false;
let findWaiting = false;
$('controls').addEventListener('submit', (e) => {
  e.preventDefault();
  if (started) void run();
  else {
    $('status').textContent = 'The app is still loading; the query runs as soon as it is ready.';
    void ui.ready.then(() => run(), () => undefined);
  }
});
$('find').addEventListener('submit', (e) => {
  e.preventDefault();
  if (started) return;
  findWaiting = true;
  $('find-message').textContent = 'Finding it as soon as the map has loaded…';
});
// Enter pressed before this script ran at all: the page's inline handler kept the page and noted it.
if ($('find').dataset.waiting) findWaiting = true;

let catalog: Catalog;
/** The weather stations, from the station index (empty when the dataset has none). */
let stationList: IndexedStation[] = [];
let view: MapView;
let running: AbortController | null = null;
let chart: uPlot | null = null;

// ---------- form <-> state ----------

/** The dataset's raster layers (its catalog declares them; none before it is loaded). */
function layers(): RasterLayerEntry[] {
  return catalog?.rasters ?? [];
}

/** The layer the form names, if the dataset has it. */
function formLayer(form: FormState): RasterLayerEntry | undefined {
  return layers().find((l) => l.dataType === form.dataType && l.subDataType === form.subDataType);
}

/** Validates a request as the engine will: raster layers against this dataset's catalog. */
function validateRequest(endpoint: Endpoint, body: unknown): void {
  if (endpoint === 'point') validatePoint(body, layers());
  else if (endpoint === 'polygon') validatePolygon(body, layers());
  else VALIDATORS[endpoint](body);
}

/** The time scale whose date format the date inputs use now. */
function currentScale(form: FormState): string | null {
  return form.source === 'stations' ? form.timeScale : (formLayer(form)?.timeScale ?? null);
}

function renderForm(form: FormState): void {
  (document.querySelector(`input[name=source][value=${form.source}]`) as HTMLInputElement).checked = true;
  $('station-options').hidden = form.source !== 'stations';
  $('raster-options').hidden = form.source !== 'raster';
  $<HTMLSelectElement>('timeScale').value = form.timeScale;
  const list = $('dataTypes');
  // Only the types this dataset holds at this scale (its catalog lists them), in the contract's order.
  const held = catalog.stations?.dataTypes[form.timeScale];
  const offered = held ? STATION_TYPES[form.timeScale].filter((t) => held.includes(t)) : STATION_TYPES[form.timeScale];
  const none = document.createElement('p');
  none.className = 'hint';
  none.textContent = `This dataset holds no ${form.timeScale} station records; choose another time scale.`;
  list.replaceChildren(
    ...(offered.length ? [] : [none]),
    ...offered.map((t) => {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = t;
      box.checked = form.dataTypes.includes(t);
      // The plain name; the contract name is in the tooltip and the developer panel.
      label.title = t;
      label.append(box, ` ${withUnit(stationWords(form.timeScale, t))}`);
      return label;
    }),
  );
  $<HTMLSelectElement>('dataType').value = form.dataType;
  // Numbers in number order (wind heights 20, 50, 100, 150, not 100, 150, 20, 50).
  const subTypes = layers().filter((l) => l.dataType === form.dataType).map((l) => l.subDataType)
    .sort((a, b) => (/^\d+(\.\d+)?$/.test(a) && /^\d+(\.\d+)?$/.test(b) ? Number(a) - Number(b) : 0));
  $<HTMLSelectElement>('subDataType').replaceChildren(...subTypes.map((s) => new Option(subTypeName(form.dataType, s), s, false, s === form.subDataType)));
  $<HTMLSelectElement>('aggregationMethod').value = form.aggregationMethod;
  const layer = formLayer(form);
  $('layer-info').textContent = layer ? `${layerName(layer)}, ${layer.timeScale === null ? 'one value, no dates' : `${layer.timeScale.replace('_', ' ')} values`}${heldText(form)}.` : 'This dataset has no such layer.';
  $('layer-definition').textContent = (layer && layerDefinition(layer.dataType, layer.subDataType, layer.description)) ?? '';
  $('layer-code').textContent = layer && form.source === 'raster' ? `Layer: dataType "${layer.dataType}", subDataType "${layer.subDataType}", dataExtent "${layer.extent}", timeScale ${layer.timeScale === null ? 'none' : `"${layer.timeScale}"`}.` : '';
  const scale = currentScale(form);
  $('dates').hidden = scale === null;
  for (const id of ['startDate', 'endDate'] as const) {
    const input = $<HTMLInputElement>(id);
    Object.assign(input, dateInputAttrs(scale ?? 'daily'));
    input.value = toDateInput(scale, form[id]);
  }
  $('date-format').textContent = scale ? `Type dates as ${dateInputAttrs(scale).placeholder}.` : '';
}

function heldText(form: FormState): string {
  const layer = formLayer(form);
  if (!layer || layer.timeScale === null) return '';
  const periods = layer.files.flatMap((f) => f.periods);
  // As the table writes periods ("Jan 2024", not "2024-01-01").
  return `; holds ${periodLabel(periods[0]!, layer.timeScale)} to ${periodLabel(periods[periods.length - 1]!, layer.timeScale)}`;
}

function readForm(): FormState {
  const source = (document.querySelector('input[name=source]:checked') as HTMLInputElement).value as FormState['source'];
  const checked = [...$('dataTypes').querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value);
  const form: FormState = {
    source,
    timeScale: $<HTMLSelectElement>('timeScale').value as StationTimeScale,
    dataTypes: checked,
    dataType: $<HTMLSelectElement>('dataType').value,
    subDataType: $<HTMLSelectElement>('subDataType').value,
    aggregationMethod: $<HTMLSelectElement>('aggregationMethod').value as FormState['aggregationMethod'],
    startDate: fromDateInput(currentScale(ui.form), $<HTMLInputElement>('startDate').value),
    endDate: fromDateInput(currentScale(ui.form), $<HTMLInputElement>('endDate').value),
  };
  return form;
}

/** The first form a dataset offers: the demo's choice where the dataset has it, else its own first layer, and its latest data. */
function defaultForm(): FormState {
  const layer = formLayer(DEFAULT_FORM) ?? layers()[0];
  const form: FormState = {
    ...DEFAULT_FORM,
    ...(layer ? { dataType: layer.dataType, subDataType: layer.subDataType } : {}),
    ...(catalog.stations ? {} : { source: 'raster' as const }),
  };
  return { ...form, ...defaultDates(form) };
}

/** `form` with the dates a person typed before the app was ready (the fields are there from the first paint). */
function withTypedDates(form: FormState): FormState {
  const scale = currentScale(form);
  const typed = (['startDate', 'endDate'] as const).map((id) => fromDateInput(scale, $<HTMLInputElement>(id).value));
  return { ...form, ...(typed[0] ? { startDate: typed[0] } : {}), ...(typed[1] ? { endDate: typed[1] } : {}) };
}

/** Sensible dates when the scale or layer changes: the last month (or year) the data holds. */
function defaultDates(form: FormState): Pick<FormState, 'startDate' | 'endDate'> {
  if (form.source === 'raster') {
    const layer = formLayer(form);
    const periods = layer?.files.flatMap((f) => f.periods) ?? [];
    if (!layer || !periods.length || layer.timeScale === null) return { startDate: '', endDate: '' };
    const scale = layer.timeScale;
    const toReq = (k: string) => (scale === 'monthly' ? k.slice(0, 7) : scale === 'calendar_month' ? k.slice(2) : k);
    const from = scale === 'daily' ? periods[Math.max(0, periods.length - 92)]! : periods[0]!;
    return { startDate: toReq(from), endDate: toReq(periods[periods.length - 1]!) };
  }
  return defaultStationDates(stationList, form.timeScale) ?? { startDate: form.startDate, endDate: form.endDate };
}

// ---------- validation and request preview ----------

function clearErrors(): void {
  document.querySelectorAll<HTMLElement>('.error').forEach((e) => (e.textContent = ''));
  showRawError('');
}

/** Removes the last answer from the screen, so an old chart never sits under a new question. */
function clearResults(): void {
  view?.showAnswer([]);
  chart?.destroy();
  chart = null;
  $('chart').replaceChildren();
  $('table').replaceChildren();
  $('metadata').replaceChildren();
  $('status').textContent = '';
  $<HTMLButtonElement>('download-csv').disabled = true;
  $<HTMLButtonElement>('download-json').disabled = true;
  ui.table = undefined;
  ui.chartData = undefined;
  ui.chart = undefined;
  ui.season?.clear();
  ui.indices?.clear();
}

/** Shows an error next to the control its field names (or under Run). */
function showError(err: { field?: string; message: string }): void {
  const field = err.field?.replace(/\[\d+\]$/, '');
  const slot = (field && document.getElementById(`error-${field}`)) || $('error-request');
  // People read "field G2"; the developer panel keeps the message as sent.
  const kind = view ? (endpointFor(ui.form, view.geometries())?.used[0]?.kind ?? null) : null;
  slot.textContent = plainError(err.message, kind);
  showRawError(err.message);
}

function geometryLabel(i: number): string {
  return `G${i + 1}`;
}

function renderGeometries(): void {
  const gs = view.geometries();
  const target = endpointFor(ui.form, gs);
  const used = new Set(target?.used.map((g) => g.id));
  const over: string[] = [];
  $('geometry-list').replaceChildren(
    ...gs.map((g) => {
      const li = document.createElement('li');
      const idx = target?.used.findIndex((u) => u.id === g.id) ?? -1;
      const name = `${idx >= 0 ? geometryLabel(idx) : '(not used)'}${g.name ? ` (${g.name})` : ''}`;
      if (g.kind === 'point') {
        const [lon, lat] = g.coordinates as [number, number];
        li.textContent = `${name}: point ${lat.toFixed(4)}, ${lon.toFixed(4)}`;
        const warn = placeWarning(lon, lat, datasetBounds(catalog, stationList));
        if (warn) {
          li.classList.add('over');
          li.textContent += ` — ${warn}`;
        }
      } else {
        const a = areaOf(g);
        const tooLarge = a > MAX_POLYGON_AREA_M2;
        li.textContent = `${name}: field of ${a >= 1e5 ? `${(a / 1e6).toFixed(3)} km²` : `${(a / 1e4).toFixed(2)} ha`}`;
        if (tooLarge) {
          over.push(g.id);
          if (ui.form.source === 'raster') {
            li.classList.add('over');
            li.textContent += ' — over the 2 km² limit of climate-layer queries';
          }
        }
      }
      if (!used.has(g.id)) li.title = 'The query uses the kind of geometry drawn last.';
      return li;
    }),
  );
  view.markTooLarge(ui.form.source === 'raster' ? over : []);
  view.setLabels(
    (target?.used ?? []).map((g, i) => {
      const ring = g.kind === 'point' ? [g.coordinates as [number, number]] : (g.coordinates as Array<Array<[number, number]>>)[0]!.slice(0, -1);
      const lon = ring.reduce((a, p) => a + p[0], 0) / ring.length;
      const lat = Math.max(...ring.map((p) => p[1]));
      return { lon, lat, label: geometryLabel(i) };
    }),
  );
  renderRequest();
}

function renderRequest(): void {
  clearErrors();
  const req = buildRequest(ui.form, view.geometries(), layers());
  renderDeveloperPanel(req);
  $('ask-info').textContent = askText(req?.endpoint ?? null, endpointFor(ui.form, view.geometries())?.used.length ?? 0);
  if (!req) {
    // Nothing drawn yet: the dates are still checked, by the contract's own parser.
    const scale = currentScale(ui.form);
    try {
      if (scale) parseRange(scale as TimeScale, ui.form.startDate, ui.form.endDate);
    } catch (e) {
      if (e instanceof ClimateQueryError) showError(e);
    }
    return;
  }
  try {
    validateRequest(req.endpoint, req.body);
  } catch (e) {
    if (e instanceof ClimateQueryError) {
      showError(e);
      clearResults();
    }
  }
}

// Nothing moves under a pressed pointer: a field's change (its error line appearing or going on
// blur) that happens while a mouse button or finger is down waits for the release, so the press
// ends on the control it began on. Without this, "Run query" moved 51 px between mouse-down and
// mouse-up when a From error vanished, and the click was lost.
let pressed = false;
let pendingChange: { ev?: Event } | null = null;
document.addEventListener('pointerdown', () => (pressed = true), true);
for (const type of ['pointerup', 'pointercancel'] as const) {
  document.addEventListener(type, () => {
    pressed = false;
    // After the click this release makes (run() flushes first when that click is Run).
    if (pendingChange) setTimeout(flushFormChange, 0);
  }, true);
}

/** Applies a form change held back while the pointer was down. */
function flushFormChange(): void {
  const p = pendingChange;
  pendingChange = null;
  if (p) applyFormChange(p.ev);
}

function onFormChange(ev?: Event): void {
  if (pressed) {
    pendingChange = { ev };
    return;
  }
  applyFormChange(ev);
}

function applyFormChange(ev?: Event): void {
  const before = ui.form;
  const form = readForm();
  const target = ev?.target as HTMLElement | undefined;
  if (target?.id === 'dataType') form.subDataType = layers().find((l) => l.dataType === form.dataType)?.subDataType ?? '-';
  let scaleNote = '';
  if (target?.id === 'timeScale' && before.timeScale !== form.timeScale) {
    // The chosen types and dates come along (scale-switch.ts); what cannot is named.
    const sw = switchScale(before.timeScale, form.timeScale, before.dataTypes, before, catalog.stations?.dataTypes[form.timeScale]);
    form.dataTypes = sw.dataTypes;
    Object.assign(form, sw.dates ? clipToHeld(form.timeScale, sw.dates, heldRange(stationList, form.timeScale)) : defaultDates(form));
    scaleNote = scaleSwitchNote(before.timeScale, form.timeScale, sw);
  }
  $('scale-note').textContent = scaleNote;
  const datesChange = target && ['dataType', 'subDataType'].includes(target.id) || (target as HTMLInputElement | undefined)?.name === 'source';
  if (datesChange) Object.assign(form, defaultDates(form));
  ui.form = form;
  if (datesChange || target?.id === 'timeScale') renderForm(form);
  renderGeometries();
  writeUrl();
}

/** What a time-scale switch could not carry over, in words ("" when it carried everything). */
function scaleSwitchNote(from: StationTimeScale, to: StationTimeScale, sw: ScaleSwitch): string {
  const parts: string[] = [];
  if (sw.dropped.length) {
    const names = sw.dropped.map((t) => stationWords(from, t).name).join('; ');
    parts.push(`${names}: no ${to} counterpart in this dataset, so ${sw.dropped.length === 1 ? 'it was' : 'they were'} left out.`);
  }
  if (!sw.dates) parts.push(`The dates were not valid ${from} dates, so the latest ${to} records are chosen instead.`);
  if (sw.shortened) parts.push(`One request holds at most ${MAX_PERIODS.toLocaleString('en-ZA')} ${to} periods, so the To date was moved to ${sw.dates!.endDate.replace('T', ' ')}.`);
  if (!sw.dataTypes.length) parts.push('Choose what to show.');
  return parts.join(' ');
}

/** The URL holds the query, the geometries and the map view, so a shared link shows the same thing. */
function writeUrl(): void {
  const c = view.map.getCenter();
  const hash = `${encodeState(ui.form, view.geometries())}&${encodeView({ zoom: view.map.getZoom(), lat: c.lat, lon: c.lng })}`;
  lastHash = hash;
  history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
}
let lastHash = '';

/** Applies a URL hash: form, geometries, map view; runs the query when it is complete. */
function applyHash(hash: string): void {
  const restored = decodeState(hash);
  const v = decodeView(hash);
  if (v) view.map.jumpTo({ center: [v.lon, v.lat], zoom: v.zoom });
  if (!restored) return;
  ui.form = restored.form;
  renderForm(ui.form);
  view.load(restored.geometries);
  renderGeometries();
  // load() clears first, and the clear wrote a URL without geometries: write the restored state back.
  writeUrl();
  if (restored.geometries.length && buildRequest(ui.form, view.geometries(), layers())) void run();
}

// ---------- running ----------

async function run(): Promise<void> {
  // What is typed now is what runs: a change held back during the press, or not yet fired (Enter), first.
  pendingChange = null;
  applyFormChange();
  renderRequest();
  const req = buildRequest(ui.form, view.geometries(), layers());
  if (!req) {
    showError({ field: 'wkts', message: 'Draw at least one point or field on the map first.' });
    $('status').textContent = 'Not run: draw a point or field on the map first.';
    return;
  }
  try {
    validateRequest(req.endpoint, req.body);
  } catch (e) {
    if (e instanceof ClimateQueryError) {
      showError(e);
      // Beside Run too: a click on Run always runs or says why not.
      $('status').textContent = `Not run: ${plainError(e.message, endpointFor(ui.form, view.geometries())?.used[0]?.kind ?? null)}`;
      return;
    }
    throw e;
  }
  running?.abort();
  clearResults();
  const controller = new AbortController();
  running = controller;
  $<HTMLButtonElement>('cancel').disabled = false;
  $<HTMLButtonElement>('run').disabled = true;
  const started = performance.now();
  const tick = setInterval(() => ($('status').textContent = `Running… ${((performance.now() - started) / 1000).toFixed(1)} s`), 100);
  $('status').textContent = 'Running…';
  const res = await engine.handle({ method: 'POST', path: req.path, body: JSON.stringify(req.body) }, { signal: controller.signal });
  clearInterval(tick);
  // A newer run, or a saved answer opened meanwhile, owns the screen now.
  if (running !== controller) return;
  running = null;
  $<HTMLButtonElement>('cancel').disabled = true;
  $<HTMLButtonElement>('run').disabled = false;
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  if (res.status !== 200) {
    const { error } = res.body as ErrorBody;
    $('status').textContent = error.code === 'aborted' ? 'Cancelled.' : `Failed after ${seconds} s.`;
    if (error.code !== 'aborted') showError(error);
    if (error.code === 'dataset_unavailable' || error.code === 'upstream_timeout') {
      ui.saved?.unreachable();
      // The same question answered before: show that answer, and say it is the saved one.
      const kept = ui.saved?.find(req.path, req.body);
      if (kept) {
        openSaved(kept);
        $('status').textContent = `No connection to the dataset: showing the answer saved on ${savedTimeLabel(kept.savedAt)}.`;
      }
    }
    return;
  }
  ui.lastRequest = req;
  ui.lastAnswer = res.body;
  renderResults(req.endpoint, req.body, res.body);
  // Station counts of 0 are not values: a field with no station inside is empty too.
  const empty = !ui.table || ui.table.series.every((s) => s.unit === 'stations' || s.values.every((v) => v === null));
  $('status').textContent = empty ? `No values for these dates (${seconds} s).` : `Answered in ${seconds} s.`;
  if (empty) {
    // Nothing to read in a table of empty rows: the message says what the data holds.
    $('table').replaceChildren();
    explainEmpty(req.endpoint, req.body, res.body);
  } else void ui.saved?.save({ form: { ...ui.form }, geometries: view.geometries(), used: endpointFor(ui.form, view.geometries())?.used ?? [], request: req, answer: res.body });
}

/** Shows a saved answer again from the device alone: its form, its geometries on the map, its chart and table. */
function openSaved(item: SavedAnswer): void {
  // The list is up before the map; a click in between waits for the next one.
  if (!ui.view) return;
  running?.abort();
  running = null;
  $<HTMLButtonElement>('cancel').disabled = true;
  $<HTMLButtonElement>('run').disabled = false;
  ui.form = { ...item.form };
  renderForm(ui.form);
  view.load(item.geometries);
  renderGeometries();
  const pts = item.geometries.flatMap((g) => (g.kind === 'point' ? [g.coordinates as [number, number]] : (g.coordinates as Array<Array<[number, number]>>)[0]!));
  if (pts.length) {
    const lons = pts.map((p) => p[0]);
    const lats = pts.map((p) => p[1]);
    view.map.fitBounds([[Math.min(...lons), Math.min(...lats)], [Math.max(...lons), Math.max(...lats)]], { padding: 80, maxZoom: 9, duration: 0 });
  }
  clearResults();
  ui.lastRequest = item.request;
  ui.lastAnswer = item.answer;
  renderResults(item.request.endpoint, item.request.body, item.answer);
  $('status').textContent = `Saved answer from ${savedTimeLabel(item.savedAt)}, shown from this device.`;
  writeUrl();
}

/**
 * An answer with no values: say so, say what the station or dataset holds,
 * and offer the dates that would answer, in one click.
 */
function explainEmpty(endpoint: Endpoint, body: Record<string, unknown>, answer: unknown): void {
  const box = document.createElement('div');
  box.id = 'no-data';
  box.setAttribute('role', 'alert');
  const p = document.createElement('p');
  box.append(p);
  // Hours as the table writes them ("2022-06-01 00:00"), not the request's "T00:00:00".
  const when = (d: unknown) => String(d ?? '').replace(/T(\d{2}:\d{2}):\d{2}$/, ' $1');
  const asked = `${when(body.startDate)} to ${when(body.endDate)}`;
  let fix: { startDate: string; endDate: string } | null = null;
  const noneInside = endpoint === 'poly-aggregate' && Object.keys((answer as { stations_metadata: object }).stations_metadata).length === 0;
  if (noneInside) {
    // The reason is the field, not the dates: no date would help.
    p.textContent = 'No weather station with records for these dates lies inside this field. Draw a point instead to get the nearest station\'s records, or draw a field around a station (the map marks them).';
  } else if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') {
    const scale = (body.options as { timeScale: string }).timeScale;
    const meta = endpoint === 'nearest-station' ? Object.values(answer as Record<string, { metadata: { station_lat: number; station_lon: number } }>)[0]?.metadata : undefined;
    const st = meta ? stationList.find((s) => s.lat === meta.station_lat && s.lon === meta.station_lon) : undefined;
    const range = heldRange(stationList, scale, st);
    const who = st ? `${st.name} holds` : 'The stations of this dataset hold';
    if (range) {
      p.textContent = `No values for ${asked}. ${who} ${scale} records from ${range[0].slice(0, 10)} to ${range[1].slice(0, 10)}.`;
      fix = defaultStationDates(stationList, scale);
    } else p.textContent = `No values for ${asked}. ${who} no ${scale} records at all; try another time scale.`;
  } else {
    const layer = catalog.rasters.find((l) => l.dataType === body.dataType && l.subDataType === (body.options as { subDataType: string }).subDataType);
    const periods = layer?.files.flatMap((f) => f.periods) ?? [];
    p.textContent = periods.length
      ? `No values for ${asked} here. The layer holds ${periods[0]} to ${periods[periods.length - 1]}; if the dates are inside that, the point or field lies outside the layer or on the sea.`
      : 'No values: the point or field lies outside the layer or on the sea.';
    if (periods.length) fix = defaultDates(ui.form);
  }
  if (fix && (fix.startDate !== body.startDate || fix.endDate !== body.endDate)) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = `Use ${fix.startDate.replace('T', ' ')} to ${fix.endDate.replace('T', ' ')} and run again`;
    const dates = fix;
    b.addEventListener('click', () => {
      Object.assign(ui.form, dates);
      renderForm(ui.form);
      onFormChange();
      void run();
    });
    box.append(b);
  }
  // No empty chart under the message, and nothing to compare or compute from it.
  ui.season?.clear();
  ui.indices?.clear();
  chart?.destroy();
  chart = null;
  $('chart').replaceChildren();
  $('metadata').prepend(box);
}

function renderResults(endpoint: Endpoint, body: Record<string, unknown>, answer: unknown): void {
  const table = toTable(endpoint, body, answer, layers());
  ui.table = table;
  const xs = table.rows.map((r, i) => xOf(r, i, table.temporal, table.timeScale));
  ui.chartData = [xs, ...table.series.map((s) => s.values)];
  renderChart(table, ui.chartData);
  renderTable(table);
  renderMetadata(endpoint, answer);
  ui.season?.offer(endpoint, body, answer);
  ui.indices?.offer(endpoint, body);
  $<HTMLButtonElement>('download-csv').disabled = false;
  $<HTMLButtonElement>('download-json').disabled = false;
}

const PALETTE = ['#1d5f8a', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#ad1457', '#5d4037', '#455a64', '#9e9d24'];

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * Tick labels of a time axis. The x values are the dataset's wall-clock
 * times counted as UTC (xOf), so they are read with UTC getters: the label
 * is the dataset's time whatever the browser's zone.
 */
function timeTicks(splits: number[], incr: number): string[] {
  return splits.map((t, i) => {
    const d = new Date(t * 1000);
    const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
    const first = i === 0;
    if (incr < 86400) return d.getUTCHours() === 0 && d.getUTCMinutes() === 0 ? `${day}\n00:00` : `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}${first ? `\n${day}` : ''}`;
    if (incr < 28 * 86400) return first || d.getUTCDate() === 1 ? `${day}\n${d.getUTCFullYear()}` : day;
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  });
}

function renderChart(table: ResultTable, data: Array<Array<number | null>>): void {
  chart?.destroy();
  const el = $('chart');
  el.replaceChildren();
  // Station counts are read in the table; the chart shows the values.
  const shown = table.series.map((s, i) => ({ s, i })).filter(({ s }) => s.unit !== 'stations');
  const units = [...new Set(shown.map(({ s }) => s.unit))];
  const width = Math.max(300, el.clientWidth || 800);
  const timeAxis = table.temporal && isTimeAxis(table.timeScale);
  const labels = table.rows.map((r) => periodLabel(r, table.timeScale));
  // One slot per month, year or calendar month; thinned so labels do not overlap.
  const every = Math.max(1, Math.ceil(table.rows.length / Math.max(1, Math.floor(width / 70))));
  const slotSplits = () => table.rows.map((_, i) => i + 1).filter((i) => (i - 1) % every === 0);
  const bars = uPlot.paths.bars!({ size: [0.7 / Math.max(1, shown.filter(({ s }) => isSum(s.label, table.timeScale)).length), 60] });
  const decimals = shown.map(({ s }) => seriesDecimals(s));
  // Bars start at zero: a year 5 % lower must look 5 % shorter, not like a sliver.
  const barUnits = new Set(shown.filter(({ s }) => isSum(s.label, table.timeScale)).map(({ s }) => s.unit || 'value'));
  const zeroBased = (_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax => {
    const lo = Math.min(0, min ?? 0);
    const hi = Math.max(0, max ?? 0);
    return [lo, hi === lo ? lo + 1 : hi + (hi - lo) * 0.05];
  };
  const rowOf = (v: number) => (timeAxis ? data[0]!.indexOf(v) : v - 1);
  chart = new uPlot(
    {
      width,
      height: 260,
      // Dates are drawn in UTC: see xOf and timeTicks.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
      scales: {
        x: timeAxis ? { time: true } : { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
        ...Object.fromEntries([...barUnits].map((u) => [u, { range: zeroBased }])),
      },
      axes: [
        timeAxis ? { values: (_u, splits, _ax, _space, incr) => timeTicks(splits, incr) } : { splits: slotSplits, values: (_u, ticks) => ticks.map((t) => labels[t - 1] ?? '') },
        ...units.map((u, k) => ({ scale: u || 'value', label: u, side: k === 0 ? 3 : 1, grid: { show: k === 0 } })),
      ],
      series: [
        { label: timeAxis ? 'time' : 'period', value: (_u, v) => (v === null ? '' : labels[rowOf(v)] ?? '') },
        ...shown.map(({ s }, k) => {
          const sum = isSum(s.label, table.timeScale);
          return {
            label: seriesHeading(s),
            scale: s.unit || 'value',
            stroke: PALETTE[k % PALETTE.length],
            fill: sum ? `${PALETTE[k % PALETTE.length]}99` : undefined,
            width: sum ? 1 : 1.5,
            paths: sum ? bars : undefined,
            points: { show: !sum && table.rows.length <= 60 },
            spanGaps: false,
            value: (_u: uPlot, v: number | null) => formatValue(v, decimals[k]!),
          };
        }),
      ],
    },
    [data[0]!, ...shown.map(({ i }) => data[i + 1]!)] as uPlot.AlignedData,
    el,
  );
  ui.chart = chart;
}

const MAX_TABLE_ROWS = 2000;

function renderTable(t: ResultTable): void {
  const table = $<HTMLTableElement>('table');
  const head = document.createElement('tr');
  // The first column holds times, or G1, G2… for a layer without dates.
  for (const h of [t.temporal || t.timeScale !== null ? 'Period' : 'Point or field', ...t.series.map(seriesHeading)]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    head.append(th);
  }
  const dec = t.series.map(seriesDecimals);
  const rows = t.rows.slice(0, MAX_TABLE_ROWS).map((r, i) => {
    const tr = document.createElement('tr');
    const th = document.createElement('td');
    th.textContent = periodLabel(r, t.timeScale);
    tr.append(th, ...t.series.map((s, k) => {
      const td = document.createElement('td');
      td.textContent = formatValue(s.values[i], dec[k]!);
      return td;
    }));
    return tr;
  });
  const thead = document.createElement('thead');
  thead.append(head);
  const tbody = document.createElement('tbody');
  tbody.append(...rows);
  table.replaceChildren(thead, tbody);
  if (t.rows.length > MAX_TABLE_ROWS) {
    const cap = document.createElement('caption');
    cap.textContent = `First ${MAX_TABLE_ROWS} of ${t.rows.length} rows; the CSV has all.`;
    table.prepend(cap);
  }
}

/** Which station answered at `lat`, `lon` (the index's name). */
function stationNameAt(lat: number, lon: number): string {
  return stationList.find((s) => s.lat === lat && s.lon === lon)?.name ?? 'station';
}

type StationMeta = { station_lat: number; station_lon: number; station_elevation: number | null; distance_from_point_m: number; actual_nearest: boolean };

/** What an answer says beyond its values, as sentences: the page lists them under the chart and the CSV writes them in its header. */
function answerNotes(endpoint: Endpoint, answer: unknown): string[] {
  const notes: string[] = [];
  if (endpoint === 'nearest-station') {
    Object.values(answer as Record<string, { metadata: StationMeta }>).forEach((v, i) => {
      const m = v.metadata;
      notes.push(`${geometryLabel(i)}: ${stationNameAt(m.station_lat, m.station_lon)} (${m.station_lat}, ${m.station_lon}), ${m.station_elevation === null ? 'elevation unknown' : `${m.station_elevation} m`}, ${(m.distance_from_point_m / 1000).toFixed(2)} km away${m.actual_nearest ? ', the nearest station' : '; a closer station had no data for this request'}`);
      if (m.distance_from_point_m > FAR_STATION_KM * 1000) notes.push(`Warning: ${geometryLabel(i)} is ${Math.round(m.distance_from_point_m / 1000).toLocaleString('en-ZA')} km from this station, too far for its weather to stand for the point's.`);
    });
  } else if (endpoint === 'poly-aggregate') {
    const meta = Object.values((answer as { stations_metadata: Record<string, Omit<StationMeta, 'distance_from_point_m' | 'actual_nearest'>> }).stations_metadata);
    notes.push(meta.length ? `${meta.length} station(s) inside the field contribute; per-period counts are in the table:` : 'No station with data lies inside the field.');
    for (const m of meta) notes.push(`${stationNameAt(m.station_lat, m.station_lon)} (${m.station_lat}, ${m.station_lon}), ${m.station_elevation === null ? 'elevation unknown' : `${m.station_elevation} m`}`);
  } else {
    notes.push('A value is left empty where a point or field lies outside the layer or on the sea (the layer has no data there).');
  }
  if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') {
    // A blank total has a rule behind it that the person should not have to find in the docs.
    const rows: Array<Record<string, number | null>> = endpoint === 'nearest-station'
      ? Object.values(answer as Record<string, { data: Record<string, Record<string, number | null>> }>).flatMap((v) => Object.values(v.data))
      : Object.values((answer as { aggregated_data: Record<string, Record<string, number | null>> }).aggregated_data);
    const blankTotals = [...new Set(rows.flatMap((r) => Object.keys(r).filter((t) => /_sum$/.test(t) && r[t] === null && Object.entries(r).some(([k, v]) => v !== null && !k.endsWith('_station_count')))))];
    const scale = (ui.lastRequest?.body.options as { timeScale?: string } | undefined)?.timeScale;
    if (blankTotals.length) notes.push(`Blank ${blankTotals.map((t) => stationWords(scale ?? 'daily', t).name.toLowerCase()).join(', ')}: a total is given only when every ${scale === 'monthly' ? 'day of the month' : 'hour of the day'} has a value (a total with gaps would be too small).`);
  }
  if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') notes.push(`Times are the dataset's local standard time, ${utcOffsetLabel(stationsUtcOffset(catalog))} all year (no daylight saving).`);
  return notes;
}

function renderMetadata(endpoint: Endpoint, answer: unknown): void {
  const box = $('metadata');
  const ul = document.createElement('ul');
  if (endpoint === 'nearest-station') {
    const used = endpointFor(ui.form, view.geometries())?.used ?? [];
    view.showAnswer(
      Object.values(answer as Record<string, { metadata: StationMeta }>).flatMap((v, i) =>
        used[i] ? [{ from: used[i].coordinates as [number, number], station: [v.metadata.station_lon, v.metadata.station_lat] as [number, number] }] : [],
      ),
    );
  }
  for (const text of answerNotes(endpoint, answer)) {
    const li = document.createElement('li');
    li.textContent = text;
    ul.append(li);
  }
  box.replaceChildren(ul);
}

/** The CSV of the answer on screen: a file name from place, data and dates, and a header block saying what it holds. */
function answerCsv(): { name: string; text: string } | null {
  const req = ui.lastRequest;
  if (!ui.table || !req) return null;
  const body = req.body;
  const station = req.endpoint === 'nearest-station' || req.endpoint === 'poly-aggregate';
  const wkts = String(body.wkts ?? '').split(';').map((w) => w.trim()).filter(Boolean);
  const geometries = endpointFor(ui.form, view.geometries())?.used ?? [];
  const opts = (body.options ?? {}) as Record<string, unknown>;
  const first = req.endpoint === 'nearest-station' ? Object.values(ui.lastAnswer as Record<string, { metadata: StationMeta }>)[0]?.metadata : undefined;
  const place = first ? stationNameAt(first.station_lat, first.station_lon) : (geometries[0]?.name ?? (wkts[0]?.startsWith('POINT') ? 'point' : 'field'));
  const what = station ? (body.dataTypes as string[]).join(' ') : `${String(body.dataType)} ${opts.subDataType && opts.subDataType !== '-' ? String(opts.subDataType) : ''}`;
  const layer = station ? undefined : layers().find((l) => l.dataType === body.dataType && l.subDataType === opts.subDataType);
  const about = [
    `climate-query export, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `Dataset: ${catalog.name ?? 'unnamed'} (${datasetUrl})${catalog.notice ? `. ${catalog.notice}` : ''}`,
    `Query: POST ${new URL(`.${req.path}`, location.href).href} ${JSON.stringify(body)}`,
    ...wkts.map((w, i) => `${geometryLabel(i)}${geometries[i]?.name ? ` (${geometries[i]!.name})` : ''}: ${w}`),
    ...(req.endpoint === 'polygon' ? [`Pixels of each field combined by ${String(opts.aggregationMethod ?? 'mean')}, weighted by the share of each pixel inside the field.`] : []),
    ...(req.endpoint === 'poly-aggregate' ? ['Values are the mean of the stations inside the field that have a value that period; the station_count columns say how many.'] : []),
    ...(layer ? [`Layer: ${layer.description}${layer.subDataType !== '-' ? `, ${subTypeName(layer.dataType, layer.subDataType)}` : ''}; ${layer.attribution ?? ''}`.replace(/; $/, '')] : []),
    ...answerNotes(req.endpoint, ui.lastAnswer).filter((n) => !/^A value is left empty/.test(n)),
    'Empty cells: no value (missing, incomplete, or outside the layer).',
  ];
  const zone = station ? `Period (${utcOffsetLabel(stationsUtcOffset(catalog))})` : ui.table.temporal || ui.table.timeScale !== null ? 'Period' : 'Point or field';
  const dates = body.startDate === undefined ? [] : [String(body.startDate), String(body.endDate)];
  return { name: downloadName([place, what, ...dates], 'csv'), text: toCsv(ui.table, zone, about) };
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function preview(): Promise<void> {
  const form = ui.form;
  const layer = formLayer(form);
  if (!layer) {
    showError({ field: 'options.subDataType', message: 'This dataset has no such layer.' });
    return;
  }
  const key = layer.timeScale === null ? '' : layer.timeScale === 'monthly' ? `${form.startDate}-01` : layer.timeScale === 'calendar_month' ? `--${form.startDate.replace(/^--/, '')}` : form.startDate;
  $('status').textContent = 'Reading the layer for the preview…';
  try {
    // geotiff.js and the decoders load only when a preview is asked for.
    const { RAMP_CSS, renderPreview } = await import('./raster-preview.ts');
    const p = await renderPreview(layer, key, datasetUrl);
    view.showPreview(p.canvas, p.bbox);
    $('legend').hidden = false;
    ($('legend').querySelector('.ramp') as HTMLElement).style.background = RAMP_CSS;
    $('legend-min').textContent = `${p.min.toFixed(1)} ${p.unit}`;
    $('legend-max').textContent = `${p.max.toFixed(1)} ${p.unit}`;
    const variant = layer.subDataType === '-' ? '' : `, ${subTypeName(layer.dataType, layer.subDataType)}`;
    $('status').textContent = `Showing ${layer.description}${variant}${key ? `, ${key.replace(/^--/, 'month ')}` : ''} on the map.`;
  } catch (e) {
    showError({ field: 'startDate', message: (e as Error).message });
    $('status').textContent = '';
  }
}

// ---------- finding a farm ----------

function setUpBasemaps(initial: OnlineBasemap | null): void {
  const choices = [null, ...ONLINE_BASEMAPS, ...(initial && !ONLINE_BASEMAPS.includes(initial) ? [initial] : [])];
  const select = $<HTMLSelectElement>('basemap');
  select.replaceChildren(...choices.map((b) => new Option(b ? b.title : 'Offline map (bundled)', b?.id ?? 'offline', false, b === initial)));
  const apply = (b: OnlineBasemap | null) => {
    $('map-notice').textContent = '';
    view.setBasemap(b);
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
    $('map-notice').textContent = `${failed.title} could not be loaded (no connection, or the tile server refused): showing the offline map.`;
  });
  apply(initial);
}

function setUpFind(places: readonly Place[]): void {
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
    else message.textContent = input.value.trim() ? `No town called "${input.value.trim()}" in the bundled list, and not coordinates. Try a nearby town, or type latitude, longitude (e.g. -33.93, 18.87).` : '';
  };
  // The early listener (top of this module) only keeps the page; from now on Enter finds.
  $('find').addEventListener('submit', (e) => {
    e.preventDefault();
    find();
  });
  if (findWaiting) find();
}

// ---------- start ----------

async function start(): Promise<void> {
  // A failed ?data= says which URL and why (dataset-load.ts); a host without Range support is a warning.
  catalog = await loadCatalog(datasetUrl, params.has('data') ? undefined : 'Build the demo dataset with `npx climate-query demo`, or open the app with ?data= and the address of your own dataset.');
  void rangeWarning(datasetUrl).then((w) => ($('data-warning').textContent = w ?? ''));
  // The dataset's own warning (the demo: synthetic weather), above every answer, so no number is read as a measurement.
  $('dataset-notice').textContent = catalog.notice ?? '';
  if (catalog.stations) {
    // The station list is the index the catalog points to (docs/data.md).
    const idx = await fetchChecked(datasetFiles.resolve(catalog.stations.index), 'The station index');
    stationList = await parseStationIndex(await idx.arrayBuffer(), catalog.stations.index);
  }
  // The layer list is the dataset's own (its catalog), so a user's dataset shows nothing of the demo.
  const dataTypes = [...new Set(layers().map((l) => l.dataType))];
  $<HTMLSelectElement>('dataType').replaceChildren(...dataTypes.map((d) => new Option(layerName(layers().find((l) => l.dataType === d)!), d)));
  (document.querySelector('input[name=source][value=raster]') as HTMLInputElement).disabled = dataTypes.length === 0;
  (document.querySelector('input[name=source][value=stations]') as HTMLInputElement).disabled = !catalog.stations;
  const restored = decodeState(location.hash);
  ui.form = restored?.form ?? withTypedDates(defaultForm());
  renderForm(ui.form);
  // Before the map: its first moveend rewrites the URL, which must not happen between here and applyHash.
  ui.season = createSeasonView($('metadata'), engine, () => ({ catalog, stations: stationList }));
  ui.indices = createIndicesView($('season'), engine, () => stationList);
  ui.saved = await createSavedList($('results'), datasetUrl, openSaved, (dataType, sub) => {
    const layer = layers().find((l) => l.dataType === dataType && l.subDataType === sub);
    return layer ? `${layer.description}${sub !== '-' ? `, ${subTypeName(dataType, sub)}` : ''}` : `${dataType}, ${subTypeName(dataType, sub)}`;
  });
  const places = await loadPlaces();
  view = await createMapView($('map'), catalog, { styleUrl: params.get('style') ?? undefined, places, bounds: datasetBounds(catalog, stationList), stations: stationList });
  ui.view = view;
  setUpBasemaps(basemapFromUrl(params));
  setUpFind(places);
  view.onChange(() => onFormChange());
  view.map.on('moveend', () => writeUrl());
  // A changed hash (pasted link, back button) applies at once; our own writes are ignored.
  window.addEventListener('hashchange', () => {
    if (location.hash !== lastHash) applyHash(location.hash);
  });
  document.querySelectorAll<HTMLButtonElement>('[data-tool]').forEach((b) =>
    b.addEventListener('click', () => {
      view.setTool(b.dataset.tool as DrawTool);
      document.querySelectorAll('[data-tool]').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
    }),
  );
  // Drawing needs a pointer; with the keyboard, find the place and add a point at the centre.
  $('point-at-centre').addEventListener('click', () => {
    const c = view.map.getCenter();
    view.load([...view.geometries(), { id: 'centre', kind: 'point', coordinates: [c.lng, c.lat] }]);
    onFormChange();
  });
  $('add-shape').addEventListener('click', () => {
    const read = readShapeText(($('shape-text') as HTMLTextAreaElement).value, `typed${Date.now()}`);
    $('shape-text-error').textContent = 'error' in read ? read.error : '';
    if ('error' in read) return;
    // Those already drawn came from the map and load again; any refusal is of a new shape.
    const refused = view.load([...view.geometries(), ...read.geometries]);
    if (refused.length) $('shape-text-error').textContent = `The map could not draw ${refused.length === 1 ? 'this shape' : `${refused.length} shapes`}: ${refused.join('; ')}.`;
    const b = boundsOf(read.geometries);
    // Fields fill the view; points alone keep their surroundings (towns, stations) in sight.
    if (b) view.map.fitBounds(b, { padding: 60, maxZoom: read.geometries.every((g) => g.kind === 'point') ? 11 : 15, duration: 0 });
    if (!refused.length) ($('shape-text') as HTMLTextAreaElement).value = '';
    onFormChange();
  });
  $('delete-selected').addEventListener('click', () => view.deleteSelected());
  $('clear-all').addEventListener('click', () => view.clear());
  $('controls').addEventListener('change', onFormChange);
  $('cancel').addEventListener('click', () => running?.abort());
  $('preview').addEventListener('click', () => void preview());
  setUpCopyButtons();
  $('download-csv').addEventListener('click', () => {
    const csv = answerCsv();
    if (csv) download(csv.name, 'text/csv', csv.text);
  });
  $('download-json').addEventListener('click', () => download(answerCsv()?.name.replace(/\.csv$/, '.json') ?? 'climate-query.json', 'application/json', JSON.stringify(ui.lastAnswer, null, 1)));
  if (catalog.stations) {
    mountSqlPanel($('results'), {
      run: (body, o) => engine.sql(body, o),
      stations: () => stationList,
      suggestedStations: () => answeringStations(stationList, ui.lastAnswer),
      defaultDays: (scale) => sqlDefaultDays(stationList, scale),
      download,
      columns: (scale) => (catalog.stations?.dataTypes[scale] ?? []).map((t): [string, string] => [t, withUnit(stationWords(scale, t))]),
    });
  }
  started = true;
  if (location.hash) applyHash(location.hash);
  else renderGeometries();
  if (serviceWorker) {
    // Once it controls the page, it keeps the files the app starts from, for offline visits.
    const startFiles = [datasetFiles.resolve('catalog.json'), ...(catalog.stations ? [datasetFiles.resolve(catalog.stations.index)] : [])];
    ui.offline = serviceWorker.then((registration) => (registration ? keepForOffline(startFiles) : undefined)).catch(() => undefined);
  }
}

ui.ready = start().catch((e: unknown) => {
  // At the top of the page: nothing else works without the dataset.
  $('data-error').textContent = (e as Error).message;
  throw e;
});
