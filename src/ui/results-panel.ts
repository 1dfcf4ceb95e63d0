/**
 * The answer on screen (`#results`): its chart, its table, what it says
 * beyond its values (station, distance, zone, blanks and their reasons), and
 * the CSV and JSON downloads. It draws whatever answer the store holds: one
 * just run, or one opened from the device.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { stationsUtcOffset } from '../dataset/catalog.ts';
import { timeScaleSpec } from '../contract/time-scales.ts';
import { utcOffsetLabel } from '../contract/utc-offset.ts';
import type { Endpoint } from '../contract/types.ts';
import { FAR_STATION_KM, defaultStationDates, stationHeldRange } from './dataset-info.ts';
import { defaultDates, layersOf } from './form-rules.ts';
import { geometryLabel } from './form-panel.ts';
import { type Panel, type PanelContext, part } from './panel.ts';
import { MONTHS, isTimeAxis, periodLabel, xOf, type ResultTable } from './result-table.ts';
import { downloadName, toCsv } from './table-csv.ts';
import { endpointFor } from './query-request.ts';
import { formatValue, isTotal, seriesColours, seriesDecimals, seriesHeading } from './series-format.ts';
import type { ShownAnswer } from './store.ts';
import { stationWords, subTypeName } from './words.ts';

type StationMeta = {
  station_lat: number;
  station_lon: number;
  station_elevation: number | null;
  distance_from_point_m: number;
  actual_nearest: boolean;
};

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
    if (incr < 86400)
      return d.getUTCHours() === 0 && d.getUTCMinutes() === 0
        ? `${day}\n00:00`
        : `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}${first ? `\n${day}` : ''}`;
    if (incr < 28 * 86400) return first || d.getUTCDate() === 1 ? `${day}\n${d.getUTCFullYear()}` : day;
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  });
}

const MAX_TABLE_ROWS = 2000;

/** The results panel, on `#results`. */
export function resultsPanel(ctx: PanelContext): Panel {
  const { root, store, actions } = ctx;
  const $ = <T extends HTMLElement = HTMLElement>(id: string) => part<T>(root, id);
  const st = () => store.get();
  const stations = () => st().dataset?.stations ?? [];
  const catalog = () => st().dataset!.catalog;
  let chart: uPlot | null = null;
  let chartData: Array<Array<number | null>> | undefined;
  ctx.expose('chart', () => chart ?? undefined);
  ctx.expose('chartData', () => chartData);

  /** Removes the answer from the screen, so an old chart never sits under a new question. */
  function clearResults(): void {
    ctx.map()?.showAnswer([]);
    chart?.destroy();
    chart = null;
    chartData = undefined;
    $('chart').replaceChildren();
    $('table').replaceChildren();
    $('metadata').replaceChildren();
    $<HTMLButtonElement>('download-csv').disabled = true;
    $<HTMLButtonElement>('download-json').disabled = true;
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
    const noneInside =
      endpoint === 'poly-aggregate' &&
      Object.keys((answer as { stations_metadata: object }).stations_metadata).length === 0;
    if (noneInside) {
      // The reason is the field, not the dates: no date would help.
      p.textContent =
        "No weather station with records for these dates lies inside this field. Draw a point instead to get the nearest station's records, or draw a field around a station (the map marks them).";
    } else if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') {
      const scale = (body.options as { timeScale: string }).timeScale;
      const meta =
        endpoint === 'nearest-station'
          ? Object.values(answer as Record<string, { metadata: { station_lat: number; station_lon: number } }>)[0]
              ?.metadata
          : undefined;
      const st = meta ? stations().find((s) => s.lat === meta.station_lat && s.lon === meta.station_lon) : undefined;
      const range = stationHeldRange(stations(), scale, st);
      const who = st ? `${st.name} holds` : 'The stations of this dataset hold';
      if (range) {
        p.textContent = `No values for ${asked}. ${who} ${scale} records from ${range[0].slice(0, 10)} to ${range[1].slice(0, 10)}.`;
        fix = defaultStationDates(stations(), scale);
      } else p.textContent = `No values for ${asked}. ${who} no ${scale} records at all; try another time scale.`;
    } else {
      const layer = catalog().rasters.find(
        (l) => l.dataType === body.dataType && l.subDataType === (body.options as { subDataType: string }).subDataType,
      );
      const periods = layer?.files.flatMap((f) => f.periods) ?? [];
      p.textContent = periods.length
        ? `No values for ${asked} here. The layer holds ${periods[0]} to ${periods[periods.length - 1]}; if the dates are inside that, the point or field lies outside the layer or on the sea.`
        : 'No values: the point or field lies outside the layer or on the sea.';
      if (periods.length) fix = defaultDates(st().dataset, st().form);
    }
    if (fix && (fix.startDate !== body.startDate || fix.endDate !== body.endDate)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `Use ${fix.startDate.replace('T', ' ')} to ${fix.endDate.replace('T', ' ')} and run again`;
      const dates = fix;
      b.addEventListener('click', () => {
        store.set({ form: { ...st().form, ...dates } });
        void actions.run();
      });
      box.append(b);
    }
    // No empty chart under the message (the season and chill views hide themselves for an empty answer).
    chart?.destroy();
    chart = null;
    $('chart').replaceChildren();
    $('metadata').prepend(box);
  }

  function renderResults(shown: ShownAnswer): void {
    const { table, request } = shown;
    const xs = table.rows.map((r, i) => xOf(r, i, table.temporal, table.timeScale));
    chartData = [xs, ...table.series.map((s) => s.values)];
    renderChart(table, chartData);
    renderTable(table);
    renderMetadata(request.endpoint, shown.answer);
    // An empty answer has nothing to file: no downloads, and the message says why it is empty.
    $<HTMLButtonElement>('download-csv').disabled = shown.empty;
    $<HTMLButtonElement>('download-json').disabled = shown.empty;
    if (shown.empty) {
      // Nothing to read in a table of empty rows: the message says what the data holds.
      $('table').replaceChildren();
      explainEmpty(request.endpoint, request.body, shown.answer);
    }
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
    // One slot per dekad, month, year or calendar month; thinned so labels do not overlap
    // (about 7 px a character: "11–20 Jun 2024" needs more room than "Jun 2024").
    const slotPx = Math.max(70, 7 * Math.max(0, ...labels.map((l) => l.length)) + 14);
    const every = Math.max(1, Math.ceil(table.rows.length / Math.max(1, Math.floor(width / slotPx))));
    const slotSplits = () => table.rows.map((_, i) => i + 1).filter((i) => (i - 1) % every === 0);
    const bars = uPlot.paths.bars!({
      size: [0.7 / Math.max(1, shown.filter(({ s }) => isTotal(s, table.timeScale)).length), 60],
    });
    const decimals = shown.map(({ s }) => seriesDecimals(s));
    const colours = seriesColours(shown.map(({ s }) => s));
    // Bars start at zero: a year 5 % lower must look 5 % shorter, not like a sliver.
    const barUnits = new Set(shown.filter(({ s }) => isTotal(s, table.timeScale)).map(({ s }) => s.unit || 'value'));
    const zeroBased = (_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax => {
      const lo = Math.min(0, min ?? 0);
      const hi = Math.max(0, max ?? 0);
      return [lo, hi === lo ? lo + 1 : hi + (hi - lo) * 0.05];
    };
    // Lines fit their values; a flat line gets ±1 around it, where uPlot's own choice for an all-zero series is 0–100.
    const fitted = (_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax =>
      min === null || max === null ? [0, 1] : min === max ? [min - 1, max + 1] : uPlot.rangeNum(min, max, 0.1, true);
    const rowOf = (v: number) => (timeAxis ? data[0]!.indexOf(v) : v - 1);
    chart = new uPlot(
      {
        width,
        height: 260,
        // Dates are drawn in UTC: see xOf and timeTicks.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
        scales: {
          x: timeAxis ? { time: true } : { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
          ...Object.fromEntries(
            units.map((u) => [u || 'value', { range: barUnits.has(u || 'value') ? zeroBased : fitted }]),
          ),
        },
        axes: [
          timeAxis
            ? { values: (_u, splits, _ax, _space, incr) => timeTicks(splits, incr) }
            : { splits: slotSplits, values: (_u, ticks) => ticks.map((t) => labels[t - 1] ?? '') },
          ...units.map((u, k) => ({ scale: u || 'value', label: u, side: k === 0 ? 3 : 1, grid: { show: k === 0 } })),
        ],
        series: [
          { label: timeAxis ? 'time' : 'period', value: (_u, v) => (v === null ? '' : (labels[rowOf(v)] ?? '')) },
          ...shown.map(({ s }, k) => {
            const sum = isTotal(s, table.timeScale);
            return {
              label: seriesHeading(s),
              scale: s.unit || 'value',
              stroke: colours[k]!,
              fill: sum ? `${colours[k]!}99` : undefined,
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
  }

  function renderTable(t: ResultTable): void {
    const table = $<HTMLTableElement>('table');
    const head = document.createElement('tr');
    // The first column holds times, or G1, G2… for a layer without dates.
    for (const h of [
      t.temporal || t.timeScale !== null ? 'Period' : 'Point or field',
      ...t.series.map(seriesHeading),
    ]) {
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
      tr.append(
        th,
        ...t.series.map((s, k) => {
          const td = document.createElement('td');
          td.textContent = formatValue(s.values[i], dec[k]!);
          return td;
        }),
      );
      return tr;
    });
    const thead = document.createElement('thead');
    thead.append(head);
    const tbody = document.createElement('tbody');
    tbody.append(...rows);
    table.replaceChildren(thead, tbody);
    // On a phone the value columns may not fit: the table says it scrolls (its first column stays).
    const wrap = $('table-wrap');
    const sideways = wrap.scrollWidth > wrap.clientWidth + 1;
    $('table-scroll-hint').hidden = !sideways;
    // A table that scrolls is reached by keyboard to scroll it; one that fits is not a stop.
    if (sideways || wrap.scrollHeight > wrap.clientHeight + 1) wrap.tabIndex = 0;
    else wrap.removeAttribute('tabindex');
    if (t.rows.length > MAX_TABLE_ROWS) {
      const cap = document.createElement('caption');
      cap.textContent = `First ${MAX_TABLE_ROWS} of ${t.rows.length} rows; the CSV has all.`;
      table.prepend(cap);
    }
  }

  /** Which station answered at `lat`, `lon` (the index's name). */
  function stationNameAt(lat: number, lon: number): string {
    return stations().find((s) => s.lat === lat && s.lon === lon)?.name ?? 'station';
  }

  /** What an answer says beyond its values, as sentences: the page lists them under the chart and the CSV writes them in its header. */
  function answerNotes(endpoint: Endpoint, answer: unknown): string[] {
    const notes: string[] = [];
    if (endpoint === 'nearest-station') {
      Object.values(answer as Record<string, { metadata: StationMeta }>).forEach((v, i) => {
        const m = v.metadata;
        notes.push(
          `${geometryLabel(i)}: ${stationNameAt(m.station_lat, m.station_lon)} (${m.station_lat}, ${m.station_lon}), ${m.station_elevation === null ? 'elevation unknown' : `${m.station_elevation} m`}, ${(m.distance_from_point_m / 1000).toFixed(2)} km away${m.actual_nearest ? ', the nearest station' : '; a closer station had no data for this request'}`,
        );
        if (m.distance_from_point_m > FAR_STATION_KM * 1000)
          notes.push(
            `Warning: ${geometryLabel(i)} is ${Math.round(m.distance_from_point_m / 1000).toLocaleString('en-ZA')} km from this station, too far for its weather to stand for the point's.`,
          );
      });
    } else if (endpoint === 'poly-aggregate') {
      const meta = Object.values(
        (answer as { stations_metadata: Record<string, Omit<StationMeta, 'distance_from_point_m' | 'actual_nearest'>> })
          .stations_metadata,
      );
      notes.push(
        meta.length
          ? `${meta.length} station(s) inside the field contribute; per-period counts are in the table:`
          : 'No station with data lies inside the field.',
      );
      for (const m of meta)
        notes.push(
          `${stationNameAt(m.station_lat, m.station_lon)} (${m.station_lat}, ${m.station_lon}), ${m.station_elevation === null ? 'elevation unknown' : `${m.station_elevation} m`}`,
        );
    } else {
      notes.push(
        'A value is left empty where a point or field lies outside the layer or on the sea (the layer has no data there).',
      );
    }
    if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate') {
      // A blank total has a rule behind it that the person should not have to find in the docs.
      const rows: Array<Record<string, number | null>> =
        endpoint === 'nearest-station'
          ? Object.values(answer as Record<string, { data: Record<string, Record<string, number | null>> }>).flatMap(
              (v) => Object.values(v.data),
            )
          : Object.values(
              (answer as { aggregated_data: Record<string, Record<string, number | null>> }).aggregated_data,
            );
      const blankTotals = [
        ...new Set(
          rows.flatMap((r) =>
            Object.keys(r).filter(
              (t) =>
                /_sum$/.test(t) &&
                r[t] === null &&
                Object.entries(r).some(([k, v]) => v !== null && !k.endsWith('_station_count')),
            ),
          ),
        ),
      ];
      const scale = (st().shown?.request.body.options as { timeScale?: string } | undefined)?.timeScale;
      // "every day of the month", "every hour of the day": the finer period the scale's totals add up.
      const spec = timeScaleSpec(scale ?? 'daily');
      const finer = spec?.station?.derivedFrom ? timeScaleSpec(spec.station.derivedFrom) : undefined;
      const every = spec && finer ? `${finer.period} of the ${spec.period}` : 'finer period';
      if (blankTotals.length)
        notes.push(
          `Blank ${blankTotals.map((t) => stationWords(scale ?? 'daily', t).name.toLowerCase()).join(', ')}: a total is given only when every ${every} has a value (a total with gaps would be too small).`,
        );
    }
    if (endpoint === 'nearest-station' || endpoint === 'poly-aggregate')
      notes.push(
        `Times are the dataset's local standard time, ${utcOffsetLabel(stationsUtcOffset(catalog()))} all year (no daylight saving).`,
      );
    return notes;
  }

  function renderMetadata(endpoint: Endpoint, answer: unknown): void {
    const box = $('metadata');
    const ul = document.createElement('ul');
    if (endpoint === 'nearest-station') {
      const used = endpointFor(st().form, st().geometries)?.used ?? [];
      ctx.map()?.showAnswer(
        Object.values(answer as Record<string, { metadata: StationMeta }>).flatMap((v, i) =>
          used[i]
            ? [
                {
                  from: used[i].coordinates as [number, number],
                  station: [v.metadata.station_lon, v.metadata.station_lat] as [number, number],
                },
              ]
            : [],
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

  /** The CSV of the answer on screen: a file name from place, data and dates, and notes after the data saying what it holds. */
  function answerCsv(): { name: string; text: string } | null {
    const shown = st().shown;
    if (!shown) return null;
    const req = shown.request;
    const table = shown.table;
    const body = req.body;
    const station = req.endpoint === 'nearest-station' || req.endpoint === 'poly-aggregate';
    const wkts = String(body.wkts ?? '')
      .split(';')
      .map((w) => w.trim())
      .filter(Boolean);
    const geometries = endpointFor(st().form, st().geometries)?.used ?? [];
    const opts = (body.options ?? {}) as Record<string, unknown>;
    const first =
      req.endpoint === 'nearest-station'
        ? Object.values(shown.answer as Record<string, { metadata: StationMeta }>)[0]?.metadata
        : undefined;
    const place = first
      ? stationNameAt(first.station_lat, first.station_lon)
      : (geometries[0]?.name ?? (wkts[0]?.startsWith('POINT') ? 'point' : 'field'));
    const what = station
      ? (body.dataTypes as string[]).join(' ')
      : `${String(body.dataType)} ${opts.subDataType && opts.subDataType !== '-' ? String(opts.subDataType) : ''}`;
    const layer = station
      ? undefined
      : layersOf(st().dataset).find((l) => l.dataType === body.dataType && l.subDataType === opts.subDataType);
    const about = [
      `climate-query export, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      `Dataset: ${catalog().name ?? 'unnamed'} (${st().dataset!.url})${catalog().notice ? `. ${catalog().notice}` : ''}`,
      `Query: POST ${new URL(`.${req.path}`, location.href).href} ${JSON.stringify(body)}`,
      // Station records carry their sources' names, licences and citations (an import writes them).
      ...(station && catalog().attribution.length > 0 ? [`Sources: ${catalog().attribution.join(' ')}`] : []),
      ...wkts.map((w, i) => `${geometryLabel(i)}${geometries[i]?.name ? ` (${geometries[i]!.name})` : ''}: ${w}`),
      ...(req.endpoint === 'polygon'
        ? [
            `Pixels of each field combined by ${String(opts.aggregationMethod ?? 'mean')}, weighted by the share of each pixel inside the field.`,
          ]
        : []),
      ...(req.endpoint === 'poly-aggregate'
        ? [
            'Values are the mean of the stations inside the field that have a value that period; the station_count columns say how many.',
          ]
        : []),
      ...(layer
        ? [
            `Layer: ${layer.description}${layer.subDataType !== '-' ? `, ${subTypeName(layer.dataType, layer.subDataType)}` : ''}; ${layer.attribution ?? ''}`.replace(
              /; $/,
              '',
            ),
          ]
        : []),
      // A key that names a longer period by its first day reads as a date in a spreadsheet: say what a row is.
      ...(typeof opts.timeScale === 'string' &&
      ['dekad', 'month'].includes(timeScaleSpec(opts.timeScale)?.calendar ?? '')
        ? [`Each row is a ${timeScaleSpec(opts.timeScale)!.period}, named by its first day.`]
        : []),
      ...answerNotes(req.endpoint, shown.answer).filter((n) => !/^A value is left empty/.test(n)),
      'Empty cells: no value (missing, incomplete, or outside the layer).',
    ];
    const zone = station
      ? `Period (${utcOffsetLabel(stationsUtcOffset(catalog()))})`
      : table.temporal || table.timeScale !== null
        ? 'Period'
        : 'Point or field';
    const dates = body.startDate === undefined ? [] : [String(body.startDate), String(body.endDate)];
    return { name: downloadName([place, what, ...dates], 'csv'), text: toCsv(table, zone, about) };
  }

  function onCsv(): void {
    const csv = answerCsv();
    if (csv) actions.download(csv.name, 'text/csv', csv.text);
  }
  function onJson(): void {
    actions.download(
      answerCsv()?.name.replace(/\.csv$/, '.json') ?? 'climate-query.json',
      'application/json',
      JSON.stringify(st().shown?.answer, null, 1),
    );
  }
  $('download-csv').addEventListener('click', onCsv);
  $('download-json').addEventListener('click', onJson);

  return {
    update(state, previous) {
      if (state.shown === previous.shown && state !== previous) return;
      clearResults();
      if (state.shown) renderResults(state.shown);
    },
    dispose() {
      clearResults();
      $('download-csv').removeEventListener('click', onCsv);
      $('download-json').removeEventListener('click', onJson);
    },
  };
}
