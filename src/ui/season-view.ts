/**
 * "This year against the other years" under the chart: for an answer of
 * annual or monthly data, one click asks the engine (through the same
 * endpoint, dates widened to everything the dataset holds) and draws the
 * chosen year over a band for the other years' range and a line for their
 * mean. When the dataset holds one year only, it says so and draws nothing.
 */
import uPlot from 'uplot';
import './season.css';
import type { ErrorBody } from '../contract/errors.ts';
import type { Endpoint } from '../contract/types.ts';
import type { Catalog } from '../dataset/catalog.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import { stationHeldRange } from './dataset-info.ts';
import { type Panel, type PanelContext, part } from './panel.ts';
import { followUpError } from './words.ts';
import { formatValue, isTotal, seriesDecimals } from './series-format.ts';
import { toTable, type ResultTable } from './result-table.ts';
import {
  hasSeason,
  planSeason,
  seasonOf,
  yearsLabel,
  type HeldSpan,
  type Season,
  type SeasonPlan,
} from './season-model.ts';

/** Other years a comparison needs before it says whether a year is usual (one or two are shown, without a verdict). */
export const MIN_OTHER_YEARS = 3;

/** Anything that answers the contract's requests (the engine client). */
interface Engine {
  handle(request: { method: string; path: string; body: string }): Promise<{ status: number; body: unknown }>;
}

/** What the view shows now, for tests and the curious. */
export interface SeasonState {
  season: Season | null;
  /** The series compared ("G1 gdd grapes"), and its unit. */
  series: string;
  unit: string;
  /** The request that asked for every year. */
  request: { path: string; body: Record<string, unknown> };
  /** Whether the answer on screen already held every year (no new request was made). */
  reused: boolean;
  /** The data drawn: [x, max, min, mean, (others,) chosen]. */
  chartData: Array<Array<number | null>>;
  /** The chart's series labels, in the same order (x first). */
  labels: string[];
}

/** The season view. */
export interface SeasonView {
  /**
   * Offers the comparison for the answer on screen (or hides itself when
   * there is none). When that answer already spans every year (`answer`
   * given), the comparison is drawn from it with no request, so it works
   * offline for a saved answer too.
   */
  offer(endpoint: Endpoint, body: Record<string, unknown>, answer?: unknown): void;
  /** Hides the view with the answer it belonged to. */
  clear(): void;
  state(): SeasonState | null;
}

/** The time scale and span the dataset holds for a request. */
function heldFor(
  endpoint: Endpoint,
  body: Record<string, unknown>,
  catalog: Catalog,
  stations: readonly IndexedStation[],
): HeldSpan | null {
  const options = (body.options ?? {}) as { timeScale?: string; subDataType?: string };
  if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') {
    const scale = options.timeScale ?? null;
    const range = scale ? stationHeldRange(stations, scale) : null;
    return range ? { scale, first: range[0], last: range[1] } : null;
  }
  const layer = catalog.rasters.find((l) => l.dataType === body.dataType && l.subDataType === options.subDataType);
  const periods = layer?.files.flatMap((f) => f.periods) ?? [];
  return layer && periods.length
    ? { scale: layer.timeScale, first: periods[0]!, last: periods[periods.length - 1]! }
    : null;
}

/** An element with an id, a class or a text (all optional). */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { id?: string; className?: string; textContent?: string } = {},
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (props.id) e.id = props.id;
  if (props.className) e.className = props.className;
  if (props.textContent) e.textContent = props.textContent;
  return e;
}

/** Creates the (hidden) view right after `anchor` (the answer's notes, under its chart). */
export function createSeasonView(
  anchor: HTMLElement,
  engine: Engine,
  dataset: () => { catalog: Catalog; stations: readonly IndexedStation[] },
): SeasonView {
  const section = el('section', { id: 'season' });
  section.hidden = true;
  section.setAttribute('aria-labelledby', 'season-title');
  const title = el('h2', { id: 'season-title', textContent: 'This year against the other years' });
  const run = el('button', { id: 'season-run', textContent: 'Compare with other years' });
  run.type = 'button';
  const year = el('select', { id: 'season-year' });
  const series = el('select', { id: 'season-series' });
  const yearLabel = el('label', { textContent: 'Year' });
  yearLabel.htmlFor = 'season-year';
  const seriesLabel = el('label', { textContent: 'Series' });
  seriesLabel.htmlFor = 'season-series';
  const controls = el('div', { className: 'season-controls' });
  controls.append(run, yearLabel, year, seriesLabel, series);
  const message = el('p', { id: 'season-message', className: 'hint' });
  message.setAttribute('role', 'status');
  const box = el('div', { id: 'season-chart' });
  const summary = el('p', { id: 'season-summary' });
  section.append(title, controls, message, box, summary);
  anchor.after(section);

  let plan: SeasonPlan | null = null;
  let endpoint: Endpoint = 'point';
  let table: ResultTable | null = null;
  let answer: unknown = null;
  let reused = false;
  /** The answer on screen and its request body, reused when it already spans every year. */
  let onScreen: { body: string; answer: unknown } | null = null;
  let chart: uPlot | null = null;
  let state: SeasonState | null = null;
  let asked = 0;

  const reset = () => {
    chart?.destroy();
    chart = null;
    box.replaceChildren();
    summary.textContent = '';
    message.textContent = '';
    table = null;
    answer = null;
    state = null;
    yearLabel.hidden = year.hidden = seriesLabel.hidden = series.hidden = true;
  };

  /** For nearest-station answers, which station the years come from: the widened dates may pick another than the answer above. */
  const stationNote = (label: string): string => {
    if (endpoint !== 'nearest-station' || !answer) return '';
    const g = Number(/^G(\d+)/.exec(label)?.[1] ?? 1) - 1;
    const m = Object.values(
      answer as Record<
        string,
        { metadata: { station_lat: number; station_lon: number; distance_from_point_m: number } }
      >,
    )[g]?.metadata;
    if (!m) return '';
    const name =
      dataset().stations.find((st) => st.lat === m.station_lat && st.lon === m.station_lon)?.name ?? 'station';
    return ` Records of ${name} (${m.station_lat}, ${m.station_lon}), ${(m.distance_from_point_m / 1000).toFixed(2)} km away.`;
  };

  const draw = () => {
    if (!table || !plan?.ok) return;
    chart?.destroy();
    chart = null;
    box.replaceChildren();
    const s = table.series[Number(series.value)]!;
    const season = seasonOf(plan.scale, table.rows, s.values, year.value);
    state = {
      season,
      series: s.label,
      unit: s.unit,
      request: { path: plan.path, body: plan.body },
      reused,
      chartData: [],
      labels: [],
    };
    if (!season) {
      message.textContent = `No other year has values for ${s.title ?? s.label} here, so there is no normal to compare ${year.value} with.`;
      summary.textContent = '';
      return;
    }
    const others = yearsLabel(season.otherYears);
    const one = season.otherYears.length === 1;
    // Fewer than three other years cannot say what is usual: the chart shows them, the words claim nothing.
    const few = season.otherYears.length < MIN_OTHER_YEARS;
    const name = s.title ?? s.label;
    message.textContent = few
      ? `Only ${one ? 'one other year' : `${season.otherYears.length} other years`} (${others}) ${one ? 'has' : 'have'} values: too few to say what is usual here, so ${season.year} is shown beside ${one ? 'it' : 'them'} without a verdict.`
      : '';
    // Every number at the series' own step (whole chill units and degree days, 0.1 °C), means and differences too.
    const dec = seriesDecimals(s);
    const f = (v: number | null) => (v === null ? '–' : formatValue(v, dec));
    const fm = f;
    const unit = s.unit ? ` ${s.unit}` : '';
    const annual = season.scale === 'annual';
    const bars = uPlot.paths.bars!({ size: [annual ? 0.6 : 0.5, 60] });
    const sum = annual || isTotal(s, season.scale);
    const labels = [
      'x',
      `Highest of ${others}`,
      `Lowest of ${others}`,
      one ? others : `Mean of ${others}`,
      ...(annual ? ['Other years'] : []),
      season.year,
    ];
    const data: Array<Array<number | null>> = [
      season.slots.map((_, i) => i + 1),
      season.max,
      season.min,
      season.mean,
      ...(annual ? [season.others] : []),
      season.chosen,
    ];
    state.chartData = data;
    state.labels = labels;
    const width = Math.max(300, box.clientWidth || anchor.clientWidth || 800);
    const value = (_u: uPlot, v: number | null) => (v === null ? '' : `${fm(v)}${unit}`);
    // Initials where three letters would run together (a phone); a dekadal axis names only its 12 months.
    const narrow = width / season.axis.filter((l) => l !== '').length < 40;
    chart = new uPlot(
      {
        width,
        height: 240,
        // Totals (bars) start at zero, so a 5 % lower year looks 5 % shorter; lines keep a fitted axis.
        scales: {
          x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
          y: {
            range: (_u, min, max) =>
              sum
                ? [Math.min(0, min), Math.max(0, max) * 1.1 + 1e-9]
                : [min - (max - min) * 0.15 - 1e-9, max + (max - min) * 0.1 + 1e-9],
          },
        },
        // Names only: a value under each name would repeat the summary below the chart.
        legend: { live: false },
        // Month initials where three letters would run together (a phone).
        axes: [
          {
            splits: () => season.slots.map((_, i) => i + 1),
            values: (_u, ticks) =>
              ticks.map((t) => (narrow ? (season.axis[t - 1] ?? '').slice(0, 1) : (season.axis[t - 1] ?? ''))),
          },
          { label: s.unit },
        ],
        bands: [{ series: [1, 2], fill: 'rgba(120, 144, 156, 0.25)' }],
        series: [
          { label: season.slotWord, value: (_u, v) => (v === null ? '' : (season.slots[v - 1] ?? '')) },
          { label: labels[1], stroke: '#90a4ae', width: 1, dash: [2, 3], points: { show: false }, value },
          { label: labels[2], stroke: '#90a4ae', width: 1, dash: [2, 3], points: { show: false }, value },
          { label: labels[3], stroke: '#37474f', width: 2, dash: [8, 4], points: { show: false }, value },
          ...(annual
            ? [{ label: labels[4], stroke: '#78909c', fill: '#b0bec5', paths: bars, points: { show: false }, value }]
            : []),
          {
            label: labels[labels.length - 1],
            stroke: '#c62828',
            fill: sum ? '#c62828cc' : undefined,
            width: sum ? 1 : 2.5,
            paths: sum ? bars : undefined,
            points: { show: !sum },
            spanGaps: false,
            value,
          },
        ],
      },
      data as uPlot.AlignedData,
      box,
    );
    if (annual) {
      const v = season.chosen.find((x) => x !== null) ?? null;
      const m = season.mean[0]!;
      const diff =
        v === null || few
          ? ''
          : ` That is ${fm(Math.abs(v - m))}${unit} ${v >= m ? 'above' : 'below'} the mean${m !== 0 ? ` (${v >= m ? '+' : '−'}${Math.abs(((v - m) / m) * 100).toFixed(0)} %)` : ''}${v < season.min[0]! ? ', lower than any other year' : v > season.max[0]! ? ', higher than any other year' : ''}.`;
      summary.textContent = `${name}:${stationNote(s.label)} ${season.year} ${v === null ? 'has no value' : `${f(v)}${unit}`}. Other years (${others}): mean ${fm(m)}${unit}, lowest ${f(season.min[0]!)}, highest ${f(season.max[0]!)}.${diff}`;
    } else {
      const outside = season.chosen.flatMap((v, i) =>
        v !== null && season.min[i] !== null && (v < season.min[i]! || v > season.max[i]!) ? [season.slots[i]!] : [],
      );
      const missing = season.chosen.filter((v) => v === null).length;
      const verdict = few
        ? ''
        : outside.length
          ? ` Outside the other years' range in ${outside.join(', ')}.`
          : ` Within the other years' range in every ${season.slotWord} with values.`;
      const w = season.slotWord;
      summary.textContent = `${name}, ${season.year} ${w} by ${w} against ${one ? others : `the mean and range of ${others}`}.${stationNote(s.label)}${verdict}${missing ? ` ${missing} ${w}(s) of ${season.year} have no value.` : ''}`;
    }
  };

  run.addEventListener('click', () => {
    if (!plan?.ok) return;
    const mine = ++asked;
    const p = plan;
    run.disabled = true;
    const held = onScreen && onScreen.body === JSON.stringify(p.body) ? onScreen : null;
    if (!held) message.textContent = `Asking for ${yearsLabel(p.years)}…`;
    const got = held
      ? Promise.resolve({ status: 200, body: held.answer })
      : engine.handle({ method: 'POST', path: p.path, body: JSON.stringify(p.body) });
    void got.then((res) => {
      if (mine !== asked) return;
      run.disabled = false;
      if (res.status !== 200) {
        message.textContent = followUpError(
          'get the other years',
          (res.body as ErrorBody).error,
          'Only the answers saved here can be shown. Connect and try again.',
        );
        return;
      }
      const { catalog } = dataset();
      message.textContent = '';
      reused = held !== null;
      answer = res.body;
      table = toTable(endpoint, p.body, res.body, catalog.rasters);
      const shown = table.series.map((s, i) => ({ s, i })).filter(({ s }) => s.unit !== 'stations');
      series.replaceChildren(
        ...shown.map(
          ({ s, i }) => new Option(s.unit ? `${s.title ?? s.label} (${s.unit})` : (s.title ?? s.label), String(i)),
        ),
      );
      yearLabel.hidden = year.hidden = false;
      seriesLabel.hidden = series.hidden = shown.length < 2;
      draw();
    });
  });
  year.addEventListener('change', draw);
  series.addEventListener('change', draw);

  return {
    offer(ep, body, shown) {
      asked++;
      reset();
      onScreen = shown === undefined ? null : { body: JSON.stringify(body), answer: shown };
      run.disabled = false;
      const { catalog, stations } = dataset();
      endpoint = ep;
      const held = heldFor(ep, body, catalog, stations);
      plan = planSeason(ep, body, held);
      // Nothing to offer for daily, hourly, calendar-month or undated data.
      section.hidden = !(held && hasSeason(held.scale));
      run.hidden = !plan.ok;
      if (!plan.ok) {
        message.textContent = plan.reason;
        return;
      }
      // The year the user asked about (the end of the range) is the one compared.
      const askedYear = String(body.endDate ?? '').slice(0, 4);
      year.replaceChildren(...plan.years.map((y) => new Option(y, y, false, y === askedYear)));
    },
    clear() {
      asked++;
      reset();
      section.hidden = true;
    },
    state: () => state,
  };
}

/** The season view as a panel of `#results`: it offers the comparison for each answer shown, and hides for none or an empty one. */
export function seasonPanel(ctx: PanelContext): Panel {
  const dataset = () => ctx.store.get().dataset!;
  const view = createSeasonView(part(ctx.root, 'metadata'), ctx.engine, () => ({
    catalog: dataset().catalog,
    stations: dataset().stations,
  }));
  ctx.expose('season', () => view);
  return {
    update(state, previous) {
      if (state.shown === previous.shown && state !== previous) return;
      const shown = state.shown;
      if (shown && !shown.empty) view.offer(shown.request.endpoint, shown.request.body, shown.answer);
      else view.clear();
    },
    dispose: () => view.clear(),
  };
}
