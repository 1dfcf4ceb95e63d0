/**
 * The app's SQL panel: pick stations, a time scale and dates, start from a
 * ready example or write DuckDB SQL, see the result as a table and download
 * it as CSV. The engine client runs the query (its Worker reads the rows,
 * DuckDB-WASM runs the SQL); this module only builds the request and shows
 * the answer.
 */
import { CALENDARS } from '../contract/calendars.ts';
import { periodKey, requestDateOf } from '../contract/periods.ts';
import { STATION_TIME_SCALES, type StationTimeScale } from '../contract/station-data-types.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import type { StationSqlResult } from '../sql/station-sql.ts';
import { sqlResultCsv } from '../sql/sql-csv.ts';
import { SQL_EXAMPLES } from './sql-examples.ts';
import { answeringStations, sqlDefaultDays } from './dataset-info.ts';
import type { Panel, PanelContext } from './panel.ts';
import { stationWords, withUnit } from './words.ts';

/** What the panel needs from the app. */
export interface SqlPanelOptions {
  /** Runs a station SQL request (the engine client's `sql`). */
  run: (body: unknown, options: { signal: AbortSignal }) => Promise<StationSqlResult>;
  /** Every station, for the station picker's suggestions. */
  stations: () => ReadonlyArray<{ id: string; name: string }>;
  /** Stations to start with (e.g. the ones that answered the last query). */
  suggestedStations: () => string[];
  /** A default first and last day (yyyy-mm-dd) for a time scale: the dataset's latest full period. */
  defaultDays: (scale: StationTimeScale) => { from: string; to: string };
  /** Saves a file for the user. */
  download: (name: string, type: string, text: string) => void;
  /** The data type columns a time scale loads, each with its plain name and unit. */
  columns: (scale: StationTimeScale) => Array<[column: string, words: string]>;
}

/** Most result rows drawn on the page; the CSV holds them all. */
const SHOWN_ROWS = 500;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, unknown> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

/** The request date of the period holding a day's first (or, for `end`, last) hour: hourly days span 00:00 to 23:00, months drop the day, dekads start on 01, 11 or 21. */
export function requestDateOfDay(scale: StationTimeScale, day: string, end: boolean): string {
  const hour = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T${end ? '23' : '00'}:00:00Z`) : NaN;
  // Not a day: passed on as typed, for the validator to name.
  if (!Number.isFinite(hour)) return day;
  return requestDateOf(scale, periodKey(scale, CALENDARS[TIME_SCALES[scale].calendar].ordinalOfMs(hour)));
}

/**
 * The station ids a typed list names: ids as they are, and station names (any case) as their ids,
 * since a grower knows "Stellenbosch 1", not "SYN-001"; anything else is passed on for the engine
 * to name as unknown.
 */
export function stationIdsOf(typed: string, stations: ReadonlyArray<{ id: string; name: string }>): string[] {
  const ids = new Set(stations.map((s) => s.id));
  const byName = new Map(stations.map((s) => [s.name.trim().toLowerCase(), s.id]));
  return typed
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => (ids.has(x) ? x : (byName.get(x.toLowerCase()) ?? x)));
}

/** Builds the panel (a collapsed <details>) and appends it to `parent`. */
export function mountSqlPanel(parent: HTMLElement, options: SqlPanelOptions): HTMLElement {
  // Only the ready queries whose columns this dataset holds: one reading a missing column would fail with DuckDB's words.
  const fits = (x: (typeof SQL_EXAMPLES)[number]) =>
    x.needs.every((t) => options.columns(x.timeScale).some(([c]) => c === t));
  const offered = SQL_EXAMPLES.map((x, i) => ({ x, i })).filter(({ x }) => fits(x));
  const example = el(
    'select',
    { id: 'sql-example' },
    el('option', {
      value: '',
      textContent: offered.length ? 'Start from an example…' : "No ready query fits this dataset's records",
    }),
    ...offered.map(({ x, i }) => el('option', { value: String(i), textContent: x.title })),
  );
  const stations = el('input', {
    id: 'sql-stations',
    autocomplete: 'off',
    placeholder: 'station names or ids, comma-separated',
  });
  stations.setAttribute('list', 'sql-station-list');
  const list = el('datalist', { id: 'sql-station-list' });
  const scale = el(
    'select',
    { id: 'sql-timeScale' },
    ...STATION_TIME_SCALES.map((s) => el('option', { value: s, textContent: `${TIME_SCALES[s].period} (${s})` })),
  );
  const from = el('input', {
    id: 'sql-from',
    placeholder: 'yyyy-mm-dd',
    pattern: '\\d{4}-\\d{2}-\\d{2}',
    inputMode: 'numeric',
  });
  const to = el('input', {
    id: 'sql-to',
    placeholder: 'yyyy-mm-dd',
    pattern: '\\d{4}-\\d{2}-\\d{2}',
    inputMode: 'numeric',
  });
  const text = el('textarea', { id: 'sql-text', rows: 7, spellcheck: false });
  const runButton = el('button', { type: 'button', id: 'sql-run', textContent: 'Run SQL' });
  const cancel = el('button', { type: 'button', id: 'sql-cancel', textContent: 'Cancel', disabled: true });
  const csv = el('button', { type: 'button', id: 'sql-csv', textContent: 'Download CSV', disabled: true });
  const status = el('span', { id: 'sql-status', role: 'status' });
  status.setAttribute('aria-live', 'polite');
  const error = el('p', { id: 'sql-error', className: 'error', role: 'alert' });
  const table = el('table', { id: 'sql-table' });
  const columnList = el('dl', { id: 'sql-columns' });
  const label = (forId: string, words: string) => el('label', { htmlFor: forId, textContent: words });

  const panel = el(
    'details',
    { id: 'sql-panel' },
    el('summary', { textContent: 'SQL over station records' }),
    el('p', {
      className: 'hint',
      textContent:
        'Ask your own question of the records with DuckDB SQL. The query sees observations(station_id, time, one column per data type) and stations(station_id, name, lat, lon, elevation). DuckDB itself loads the first time you run a query (about 34 MB, 7–8 MB where the host compresses it), then stays for the visit.',
    }),
    el('details', {}, el('summary', { textContent: 'Columns of observations' }), columnList),
    label('sql-example', 'Ready query'),
    example,
    label('sql-stations', 'Station ids'),
    stations,
    list,
    label('sql-timeScale', 'Records by'),
    scale,
    el(
      'div',
      { className: 'sql-dates' },
      el('span', {}, label('sql-from', 'First day'), from),
      el('span', {}, label('sql-to', 'Last day'), to),
    ),
    label('sql-text', 'SQL'),
    text,
    el('div', { className: 'actions' }, runButton, cancel, csv, status),
    error,
    el('div', { className: 'table-wrap' }, table),
  );
  parent.append(panel);

  let result: StationSqlResult | null = null;
  let running: AbortController | null = null;

  const setDays = () => {
    const s = scale.value as StationTimeScale;
    const d = options.defaultDays(s);
    from.value = d.from;
    to.value = d.to;
    const time =
      s === 'hourly'
        ? 'the hour, station time (TIMESTAMP)'
        : s === 'daily'
          ? 'the day (DATE)'
          : "the month's first day (DATE)";
    columnList.replaceChildren(
      ...[['station_id', 'the station (join stations on it)'], ['time', time], ...options.columns(s)].flatMap(
        ([c, w]) => [el('dt', { textContent: c! }), el('dd', { textContent: w! })],
      ),
    );
  };
  panel.addEventListener('toggle', () => {
    if (!panel.open) return;
    if (list.childElementCount === 0)
      list.append(...options.stations().map((s) => el('option', { value: s.id, label: s.name })));
    if (!stations.value) stations.value = options.suggestedStations().join(', ');
    if (!from.value) setDays();
    // Start from the first ready query rather than an empty box.
    if (!text.value && offered[0]) {
      example.value = String(offered[0].i);
      example.dispatchEvent(new Event('change'));
    }
  });
  example.addEventListener('change', () => {
    const x = SQL_EXAMPLES[Number(example.value)];
    if (!x || example.value === '') return;
    text.value = x.sql;
    if (scale.value !== x.timeScale) {
      scale.value = x.timeScale;
      setDays();
    }
  });
  scale.addEventListener('change', setDays);

  const show = (r: StationSqlResult) => {
    const head = el('tr', {}, ...r.columns.map((c) => el('th', { scope: 'col', textContent: c.name })));
    const body = r.rows.slice(0, SHOWN_ROWS).map((row) =>
      el(
        'tr',
        {},
        ...row.map((v, i) =>
          el('td', {
            textContent: v === null ? '' : String(v),
            className: r.columns[i]!.type === 'number' ? 'num' : '',
          }),
        ),
      ),
    );
    table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...body));
  };

  runButton.addEventListener('click', () => {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    const s = scale.value as StationTimeScale;
    const body = {
      sql: text.value,
      stations: stationIdsOf(stations.value, options.stations()),
      timeScale: s,
      startDate: requestDateOfDay(s, from.value.trim(), false),
      endDate: requestDateOfDay(s, to.value.trim(), true),
    };
    error.textContent = '';
    result = null;
    csv.disabled = true;
    table.replaceChildren();
    status.textContent = 'Running…';
    cancel.disabled = false;
    const t0 = performance.now();
    options
      .run(body, { signal: controller.signal })
      .then((r) => {
        if (running !== controller) return;
        result = r;
        show(r);
        csv.disabled = false;
        const shown = r.rows.length > SHOWN_ROWS ? ` (first ${SHOWN_ROWS} shown; the CSV has all)` : '';
        status.textContent = `${r.rows.length} rows${shown} from ${r.loaded.rows} ${r.loaded.timeScale} records of ${r.loaded.stations} station(s), ${((performance.now() - t0) / 1000).toFixed(1)} s.`;
      })
      .catch((err: { message?: string }) => {
        if (running !== controller) return;
        status.textContent = '';
        // This panel speaks SQL to those who write it: the engine's message, which names its field, as written.
        error.textContent = err.message ?? String(err);
      })
      .finally(() => {
        if (running === controller) {
          running = null;
          cancel.disabled = true;
        }
      });
  });
  cancel.addEventListener('click', () => {
    running?.abort();
    running = null;
    cancel.disabled = true;
    status.textContent = 'Cancelled.';
  });
  csv.addEventListener(
    'click',
    () => result && options.download('climate-query-sql.csv', 'text/csv', sqlResultCsv(result)),
  );
  return panel;
}

/** The SQL panel of `#results`, over the engine client's `sql`; nothing for a dataset without stations. */
export function sqlPanel(ctx: PanelContext): Panel {
  const dataset = ctx.store.get().dataset;
  if (!dataset?.catalog.stations) return { update: () => undefined, dispose: () => undefined };
  const section = mountSqlPanel(ctx.root, {
    run: (body, o) => ctx.engine.sql(body, o),
    stations: () => dataset.stations,
    suggestedStations: () => answeringStations(dataset.stations, ctx.store.get().shown?.answer),
    defaultDays: (scale) => sqlDefaultDays(dataset.stations, scale),
    download: (name, type, text) => ctx.actions.download(name, type, text),
    columns: (scale) =>
      (dataset.catalog.stations?.dataTypes[scale] ?? []).map((t): [string, string] => [
        t,
        withUnit(stationWords(scale, t)),
      ]),
  });
  return { update: () => undefined, dispose: () => section.remove() };
}
