/**
 * "Chill and heat" under an answer for a point or a field: one click asks
 * the engine's station-indices route (docs/indices.md) for every season the
 * stations hold, and shows per family a table of the seasons — the latest
 * marked, each with the share of its hours known and the reason where a
 * value is missing — a sentence comparing the latest season with the
 * others, and the definitions one click away. The layout is
 * `indices-model.ts`; this file only draws it.
 */
import './indices.css';
import type { ErrorBody } from '../contract/errors.ts';
import { CROP_GDD_BASE, INDEX_DEFAULTS, STATION_INDICES } from '../contract/station-indices.ts';
import type { Endpoint } from '../contract/types.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import { stationHeldRange } from './dataset-info.ts';
import { type Panel, type PanelContext, part } from './panel.ts';
import { blankWords, followUpError } from './words.ts';
import {
  arrangeIndices,
  formatIndex,
  planIndices,
  SHOWN,
  type FamilyTable,
  type HeldDays,
  type IndicesPlan,
} from './indices-model.ts';

/** Anything that answers the routes (the engine client). */
interface Engine {
  handle(request: { method: string; path: string; body: string }): Promise<{ status: number; body: unknown }>;
}

/** What the view shows now, for tests. */
export interface IndicesState {
  request: { path: string; body: Record<string, unknown> };
  answer: unknown;
  tables: FamilyTable[];
}

/** The view. */
export interface IndicesView {
  /** Offers chill and heat for the answer on screen (hidden when there is nothing to offer). */
  offer(endpoint: Endpoint, body: Record<string, unknown>): void;
  clear(): void;
  state(): IndicesState | null;
}

/** The days the stations hold: hourly records, else daily ones. */
function heldDays(stations: readonly IndexedStation[]): HeldDays {
  const r = stationHeldRange(stations, 'hourly') ?? stationHeldRange(stations, 'daily');
  return r ? { first: r[0].slice(0, 10), last: r[1].slice(0, 10) } : null;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text = '', className = ''): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text) e.textContent = text;
  if (className) e.className = className;
  return e;
}

/** Creates the (hidden) view after `anchor`. */
export function createIndicesView(
  anchor: HTMLElement,
  engine: Engine,
  stations: () => readonly IndexedStation[],
): IndicesView {
  const section = el('section');
  section.id = 'indices';
  section.hidden = true;
  section.setAttribute('aria-labelledby', 'indices-title');
  const title = el('h2', 'Chill and heat from the station records');
  title.id = 'indices-title';
  const run = el('button', 'Chill and heat');
  run.id = 'indices-run';
  run.type = 'button';
  const message = el('p', '', 'hint');
  message.id = 'indices-message';
  message.setAttribute('role', 'status');
  const body = el('div');
  body.id = 'indices-body';
  const defs = el('details');
  defs.id = 'indices-definitions';
  defs.append(
    el('summary', 'Definitions'),
    ...SHOWN.flatMap((f) => f.indices).map((n) => {
      const p = el('p');
      p.append(el('strong', `${STATION_INDICES[n].words}: `), STATION_INDICES[n].definition);
      return p;
    }),
    el(
      'p',
      `A season's value needs ${Math.round(INDEX_DEFAULTS.minCompleteness * 100)} % of its hours; gaps of up to ${INDEX_DEFAULTS.maxGapHours} hours are filled in a straight line. Stations with only daily minimum and maximum have their hours rebuilt from them (chillR's method). Sources and details: docs/indices.md.`,
    ),
  );
  section.append(title, run, message, body, defs);
  anchor.after(section);

  let plan: IndicesPlan | null = null;
  let state: IndicesState | null = null;
  let asked = 0;

  const render = (tables: FamilyTable[], where: string, options: Record<string, unknown>) => {
    // The degree-day base the engine used: the request's, its crop's, or the default.
    const base =
      typeof options.gddBase === 'number'
        ? options.gddBase
        : typeof options.crop === 'string' && Object.hasOwn(CROP_GDD_BASE, options.crop)
          ? CROP_GDD_BASE[options.crop as keyof typeof CROP_GDD_BASE]
          : INDEX_DEFAULTS.gddBase;
    const heading = (c: FamilyTable['indices'][number]) => {
      const words = c.name === 'gdd' ? `${c.words}, base ${base} °C` : c.words;
      return words.toLowerCase().includes(c.unit) ? words : `${words} (${c.unit})`;
    };
    body.replaceChildren(el('p', `From ${where}.`, 'hint'));
    for (const t of tables) {
      const fig = el('figure', '', 'indices-family');
      fig.dataset.family = t.family;
      // A table wider than a phone scrolls inside its figure: reachable by keyboard, its first column fixed.
      fig.tabIndex = 0;
      fig.setAttribute('role', 'region');
      fig.setAttribute('aria-label', `${t.title} (scrolls sideways on a narrow screen)`);
      fig.append(el('figcaption', `${t.title}, ${t.window}`));
      const table = el('table');
      const head = el('tr');
      // The unit only where the words do not already say it ("Chill portions (Dynamic Model)", not "… (chill portions)").
      head.append(el('th', 'Season'), ...t.indices.map((c) => el('th', heading(c))), el('th', 'Hours known'));
      table.append(head);
      t.rows.forEach((r, i) => {
        const tr = el('tr');
        if (i === t.rows.length - 1) tr.className = 'latest';
        const label = el('td', `${r.label}${r.partial ? ' (part)' : ''}`);
        label.title = `${r.start} to ${r.end}`;
        tr.append(label);
        r.values.forEach((v, k) => {
          const td = el('td', formatIndex(v, t.indices[k]!.decimals), 'num');
          // A blank has its reason next to it.
          if (v === null && r.reasons[k]) td.title = r.reasons[k]!;
          tr.append(td);
        });
        tr.append(el('td', `${Math.floor(r.known * 1000) / 10} %`, r.values[0] === null ? 'num short' : 'num'));
        table.append(tr);
      });
      fig.append(table, el('p', t.summary, 'indices-summary'));
      // Why a season shows "–", in words under the table made from its hours (the cell's tooltip
      // keeps the answer's own reason, which names the request option a developer would change).
      const why = t.rows.flatMap((r) =>
        r.values.some((v) => v === null) ? [`${r.label}: ${blankWords(r.hours, INDEX_DEFAULTS.minCompleteness)}`] : [],
      );
      if (why.length) fig.append(el('p', `– means no value. ${why.join(' ')}`, 'hint indices-blanks'));
      body.append(fig);
    }
  };

  run.addEventListener('click', () => {
    if (!plan?.ok) return;
    const mine = ++asked;
    const p = plan;
    run.disabled = true;
    message.textContent = `Computing chill and heat for every season (${String(p.body.startDate).slice(0, 4)} to ${String(p.body.endDate).slice(0, 4)})…`;
    const request = { path: '/api/station-indices/', body: p.body };
    void engine.handle({ method: 'POST', path: request.path, body: JSON.stringify(p.body) }).then((res) => {
      if (mine !== asked) return;
      run.disabled = false;
      if (res.status !== 200) {
        message.textContent = followUpError('compute chill and heat', (res.body as ErrorBody).error);
        return;
      }
      message.textContent = '';
      const tables = arrangeIndices(res.body);
      state = { request, answer: res.body, tables };
      render(tables, p.where, (p.body.options ?? {}) as Record<string, unknown>);
    });
  });

  return {
    offer(endpoint, b) {
      asked++;
      state = null;
      body.replaceChildren();
      message.textContent = '';
      run.disabled = false;
      plan = planIndices(endpoint, b, heldDays(stations()));
      section.hidden = !plan.ok;
    },
    clear() {
      asked++;
      state = null;
      body.replaceChildren();
      section.hidden = true;
    },
    state: () => state,
  };
}

/** Chill and heat as a panel of `#results`, after the season view: offered for each answer shown, hidden for none or an empty one. */
export function indicesPanel(ctx: PanelContext): Panel {
  const view = createIndicesView(part(ctx.root, 'season'), ctx.engine, () => ctx.store.get().dataset?.stations ?? []);
  ctx.expose('indices', () => view);
  return {
    update(state, previous) {
      if (state.shown === previous.shown && state !== previous) return;
      const shown = state.shown;
      if (shown && !shown.empty) view.offer(shown.request.endpoint, shown.request.body);
      else view.clear();
    },
    dispose: () => view.clear(),
  };
}
