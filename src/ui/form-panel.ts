/**
 * The query form (`#controls`): drawing tools, the data choice, the dates,
 * Run and Cancel. It writes what the person chose into the store and shows
 * the contract's own validation next to each control, before anything is
 * sent. Nothing moves under a pressed pointer, so no click is lost.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { MAX_PERIODS, parseDate, parseRange, periodKey, type TimeScale } from '../contract/periods.ts';
import { MAX_POLYGON_AREA_M2 } from '../contract/raster-layers.ts';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import { datasetBounds, stationHeldRange, placeWarning } from './dataset-info.ts';
import { dateInputAttrs, fromDateInput, toDateInput } from './date-input.ts';
import { aggregationOptions, stationTypeOptions, timeScaleOptions } from './form-options.ts';
import { currentScale, defaultDates, formLayer, layersOf, validateRequest } from './form-rules.ts';
import type { DrawTool } from './map-view.ts';
import { type Panel, type PanelContext, part } from './panel.ts';
import { areaOf, buildRequest, endpointFor, type FormState } from './query-request.ts';
import { periodLabel } from './result-table.ts';
import { areaText } from './saved-summary.ts';
import { clipToHeld, type ScaleSwitch, switchScale } from './scale-switch.ts';
import { boundsOf, readShapeText } from './shape-text.ts';
import type { AppDataset, AppState } from './store.ts';
import {
  askText,
  type ErrorLike,
  errorOf,
  errorWords,
  layerDefinition,
  layerName,
  stationWords,
  subTypeName,
} from './words.ts';

/** "G1", "G2": how the form, the chart and the CSV name the geometries a query uses. */
export function geometryLabel(i: number): string {
  return `G${i + 1}`;
}

/** The dates typed into the From and To fields before the app was ready (the fields are there from the first paint). */
export function typedDates(root: HTMLElement, scale: string | null): Partial<Pick<FormState, 'startDate' | 'endDate'>> {
  const typed = (['startDate', 'endDate'] as const).map((id) =>
    fromDateInput(scale, part<HTMLInputElement>(root, id).value),
  );
  return { ...(typed[0] ? { startDate: typed[0] } : {}), ...(typed[1] ? { endDate: typed[1] } : {}) };
}

/** The form panel, on `#controls`. */
export function formPanel(ctx: PanelContext): Panel {
  const { root, store, actions } = ctx;
  const $ = <T extends HTMLElement = HTMLElement>(id: string) => part<T>(root, id);
  const dataset = () => store.get().dataset;
  /** The form this panel last wrote: a state holding another one came from elsewhere (a link, a saved answer) and is drawn. */
  let written: FormState | null = null;

  // The option lists come from the contract's description of scales, types and aggregations (none in index.html).
  $<HTMLSelectElement>('timeScale').replaceChildren(...timeScaleOptions().map((o) => new Option(o.label, o.value)));
  $<HTMLSelectElement>('aggregationMethod').replaceChildren(
    ...aggregationOptions().map((o) => new Option(o.label, o.value)),
  );

  function renderOptions(d: AppDataset): void {
    // The layer list is the dataset's own (its catalog), so a user's dataset shows nothing of the demo.
    const layers = layersOf(d);
    const dataTypes = [...new Set(layers.map((l) => l.dataType))];
    $<HTMLSelectElement>('dataType').replaceChildren(
      ...dataTypes.map((t) => new Option(layerName(layers.find((l) => l.dataType === t)!), t)),
    );
    root.querySelector<HTMLInputElement>('input[name=source][value=raster]')!.disabled = dataTypes.length === 0;
    root.querySelector<HTMLInputElement>('input[name=source][value=stations]')!.disabled = !d.catalog.stations;
  }

  function renderForm(form: FormState): void {
    const d = dataset();
    root.querySelector<HTMLInputElement>(`input[name=source][value=${form.source}]`)!.checked = true;
    $('station-options').hidden = form.source !== 'stations';
    $('raster-options').hidden = form.source !== 'raster';
    $<HTMLSelectElement>('timeScale').value = form.timeScale;
    // Only the types this dataset holds at this scale (its catalog lists them), in the contract's order.
    const offered = stationTypeOptions(form.timeScale, d?.catalog.stations?.dataTypes[form.timeScale]);
    const none = document.createElement('p');
    none.className = 'hint';
    none.textContent = `This dataset holds no ${form.timeScale} station records; choose another time scale.`;
    $('dataTypes').replaceChildren(
      ...(offered.length ? [] : [none]),
      ...offered.map((o) => {
        const label = document.createElement('label');
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.value = o.value;
        box.checked = form.dataTypes.includes(o.value);
        // The plain name; the contract name is in the tooltip and the developer panel.
        label.title = o.title;
        label.append(box, ` ${o.label}`);
        return label;
      }),
    );
    $<HTMLSelectElement>('dataType').value = form.dataType;
    // Numbers in number order (wind heights 20, 50, 100, 150, not 100, 150, 20, 50).
    const numeric = (s: string) => /^\d+(\.\d+)?$/.test(s);
    const subTypes = layersOf(d)
      .filter((l) => l.dataType === form.dataType)
      .map((l) => l.subDataType)
      .sort((a, b) => (numeric(a) && numeric(b) ? Number(a) - Number(b) : 0));
    $<HTMLSelectElement>('subDataType').replaceChildren(
      ...subTypes.map((s) => new Option(subTypeName(form.dataType, s), s, false, s === form.subDataType)),
    );
    $<HTMLSelectElement>('aggregationMethod').value = form.aggregationMethod;
    const layer = formLayer(d, form);
    const kind = layer?.timeScale === null ? 'one value, no dates' : `${layer?.timeScale?.replace('_', ' ')} values`;
    $('layer-info').textContent = layer
      ? `${layerName(layer)}, ${kind}${heldText(form)}.`
      : 'This dataset has no such layer.';
    $('layer-definition').textContent =
      (layer && layerDefinition(layer.dataType, layer.subDataType, layer.description)) ?? '';
    const scale = currentScale(d, form);
    $('dates').hidden = scale === null;
    for (const id of ['startDate', 'endDate'] as const) {
      const input = $<HTMLInputElement>(id);
      Object.assign(input, dateInputAttrs(scale ?? 'daily'));
      input.value = toDateInput(scale, form[id]);
    }
    $('date-format').textContent = scale ? `Type dates as ${dateInputAttrs(scale).placeholder}.` : '';
  }

  function heldText(form: FormState): string {
    const layer = formLayer(dataset(), form);
    if (!layer || layer.timeScale === null) return '';
    const periods = layer.files.flatMap((f) => f.periods);
    // As the table writes periods ("Jan 2024", not "2024-01-01").
    return `; holds ${periodLabel(periods[0]!, layer.timeScale)} to ${periodLabel(periods[periods.length - 1]!, layer.timeScale)}`;
  }

  function readForm(): FormState {
    const before = store.get().form;
    const scale = currentScale(dataset(), before);
    return {
      source: root.querySelector<HTMLInputElement>('input[name=source]:checked')!.value as FormState['source'],
      timeScale: $<HTMLSelectElement>('timeScale').value as StationTimeScale,
      dataTypes: [...$('dataTypes').querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value),
      dataType: $<HTMLSelectElement>('dataType').value,
      subDataType: $<HTMLSelectElement>('subDataType').value,
      aggregationMethod: $<HTMLSelectElement>('aggregationMethod').value as FormState['aggregationMethod'],
      startDate: fromDateInput(scale, $<HTMLInputElement>('startDate').value),
      endDate: fromDateInput(scale, $<HTMLInputElement>('endDate').value),
    };
  }

  // ---------- errors next to their controls ----------

  /** The control an error's pointer names: `/wkts/2` → `wkts`, `/options/timeScale` → `options.timeScale` (ids in index.html). */
  function slotOf(pointer: string | undefined): string | null {
    if (!pointer) return null;
    const tokens = pointer.split('/').slice(1);
    while (tokens.length > 1 && /^\d+$/.test(tokens[tokens.length - 1]!)) tokens.pop();
    return tokens.join('.');
  }

  // Only the lines the request's check fills: the typed-shape line belongs to its text box and
  // stays until that text changes (a redraw after the mouse released "Add to map" wiped it).
  function clearErrors(): void {
    for (const e of root.querySelectorAll<HTMLElement>('.error[id^="error-"]')) e.textContent = '';
  }

  /** Shows an error next to the control its field names (or under Run). */
  function showError(state: AppState, err: ErrorLike): void {
    const field = slotOf(err.field);
    const slot = (field && root.querySelector<HTMLElement>(`#${CSS.escape(`error-${field}`)}`)) || $('error-request');
    // People read "field G2"; the developer panel keeps the message as sent.
    slot.textContent = errorWords(err, endpointFor(state.form, state.geometries)?.used[0]?.kind ?? null);
  }

  function renderGeometries(state: AppState): void {
    const d = state.dataset;
    const target = endpointFor(state.form, state.geometries);
    const used = new Set(target?.used.map((g) => g.id));
    const over: string[] = [];
    const bounds = d ? datasetBounds(d.catalog, d.stations) : null;
    $('geometry-list').replaceChildren(
      ...state.geometries.map((g) => {
        const li = document.createElement('li');
        const idx = target?.used.findIndex((u) => u.id === g.id) ?? -1;
        const name = `${idx >= 0 ? geometryLabel(idx) : '(not used)'}${g.name ? ` (${g.name})` : ''}`;
        if (g.kind === 'point') {
          const [lon, lat] = g.coordinates as [number, number];
          li.textContent = `${name}: point ${lat.toFixed(4)}, ${lon.toFixed(4)}`;
          const warn = bounds && placeWarning(lon, lat, bounds);
          if (warn) {
            li.classList.add('over');
            li.textContent += ` — ${warn}`;
          }
        } else {
          li.textContent = `${name}: field of ${areaText(g)}`;
          if (areaOf(g) > MAX_POLYGON_AREA_M2) {
            over.push(g.id);
            if (state.form.source === 'raster') {
              li.classList.add('over');
              li.textContent += ' — over the 2 km² limit of climate-layer queries';
            }
          }
        }
        if (!used.has(g.id)) li.title = 'The query uses the kind of geometry drawn last.';
        return li;
      }),
    );
    const view = ctx.map();
    view?.markTooLarge(state.form.source === 'raster' ? over : []);
    view?.setLabels(
      (target?.used ?? []).map((g, i) => {
        const ring =
          g.kind === 'point'
            ? [g.coordinates as [number, number]]
            : (g.coordinates as Array<Array<[number, number]>>)[0]!.slice(0, -1);
        const lon = ring.reduce((a, p) => a + p[0], 0) / ring.length;
        const lat = Math.max(...ring.map((p) => p[1]));
        return { lon, lat, label: geometryLabel(i) };
      }),
    );
  }

  /** Checks what would be sent with the contract's own validators, and says what a Run would ask. */
  function renderRequest(state: AppState): void {
    clearErrors();
    const req = buildRequest(state.form, state.geometries, layersOf(state.dataset));
    // A point has one pixel: how a field's pixels combine is asked only when a field will be sent.
    const pointQuery = req?.endpoint === 'point';
    $('aggregationMethod').hidden = pointQuery;
    root.querySelector<HTMLElement>('label[for=aggregationMethod]')!.hidden = pointQuery;
    $('ask-info').textContent = askText(
      req?.endpoint ?? null,
      endpointFor(state.form, state.geometries)?.used.length ?? 0,
    );
    try {
      if (req) validateRequest(state.dataset, req.endpoint, req.body);
      else {
        // Nothing drawn yet: the dates are still checked, by the contract's own parser.
        const scale = currentScale(state.dataset, state.form);
        if (scale) parseRange(scale as TimeScale, state.form.startDate, state.form.endDate);
      }
    } catch (e) {
      if (!(e instanceof ClimateQueryError)) throw e;
      showError(state, e);
      // An old chart never sits under a new question that cannot be asked.
      if (req && state.shown) store.set({ shown: null, status: '' });
    }
  }

  // ---------- changes ----------

  // Nothing moves under a pressed pointer: a field's change (its error line appearing or going on
  // blur) that happens while a mouse button or finger is down waits for the release, so the press
  // ends on the control it began on. Without this, "Run query" moved 51 px between mouse-down and
  // mouse-up when a From error vanished, and the click was lost.
  // The held change keeps the form as it was when the change fired: a flush that read the fields
  // afresh took in a date still being typed next to it, and showed its error before it was left
  // (seen in CI: a timer comes after queued key presses on a loaded machine). Held changes apply in
  // the order they fired, before any later change: applied after it, an older snapshot put back
  // the To date the person had just typed (seen in CI: a week of July became the year's end).
  let pressed = false;
  let pendingChanges: Array<{ ev?: Event; form: FormState }> = [];
  const onDown = () => (pressed = true);
  const onUp = () => {
    pressed = false;
    // After the click this release makes (a Run click applies it first). A busy page can run this
    // timer only after the next press has begun (seen: 114 ms late, behind queued key presses):
    // then everything held waits for that press's release, or Run moves under it.
    if (pendingChanges.length) setTimeout(() => pressed || flushFormChanges(), 0);
  };
  document.addEventListener('pointerdown', onDown, true);
  document.addEventListener('pointerup', onUp, true);
  document.addEventListener('pointercancel', onUp, true);

  function flushFormChanges(): void {
    const held = pendingChanges;
    pendingChanges = [];
    for (const p of held) applyFormChange(p.ev, p.form);
  }

  function onFormChange(ev?: Event): void {
    if (pressed) {
      pendingChanges.push({ ev, form: readForm() });
      return;
    }
    flushFormChanges();
    applyFormChange(ev);
  }

  /** Applies a change of the form (`form`: the fields as read when it fired, by default now). */
  function applyFormChange(ev?: Event, form: FormState = readForm()): void {
    const d = dataset();
    const before = store.get().form;
    const target = ev?.target as HTMLElement | undefined;
    if (target?.id === 'dataType')
      form.subDataType = layersOf(d).find((l) => l.dataType === form.dataType)?.subDataType ?? '-';
    let scaleNote = '';
    if (target?.id === 'timeScale' && before.timeScale !== form.timeScale) {
      // The chosen types and dates come along (scale-switch.ts); what cannot is named.
      const sw = switchScale(
        before.timeScale,
        form.timeScale,
        before.dataTypes,
        before,
        d?.catalog.stations?.dataTypes[form.timeScale],
      );
      form.dataTypes = sw.dataTypes;
      // Dates the person chose come along; the dates offered by default give way to the new scale's
      // (an hourly query starts on a week, not the daily default's month of 744 hours).
      const offered = defaultDates(d, { ...form, timeScale: before.timeScale });
      const chosen = !(offered.startDate === before.startDate && offered.endDate === before.endDate);
      Object.assign(
        form,
        sw.dates && chosen
          ? clipToHeld(form.timeScale, sw.dates, stationHeldRange(d?.stations ?? [], form.timeScale))
          : defaultDates(d, form),
      );
      scaleNote = scaleSwitchNote(before.timeScale, form.timeScale, sw);
    }
    $('scale-note').textContent = scaleNote;
    const datesChange =
      (target && ['dataType', 'subDataType'].includes(target.id)) ||
      (target as HTMLInputElement | undefined)?.name === 'source';
    if (datesChange) Object.assign(form, defaultDates(d, form));
    written = form;
    if (datesChange || target?.id === 'timeScale') renderForm(form);
    store.set({ form });
  }

  /** What a time-scale switch could not carry over, in words ("" when it carried everything). */
  function scaleSwitchNote(from: StationTimeScale, to: StationTimeScale, sw: ScaleSwitch): string {
    const parts: string[] = [];
    if (sw.dropped.length) {
      const names = sw.dropped.map((t) => stationWords(from, t).name).join('; ');
      parts.push(
        `${names}: no ${to} counterpart in this dataset, so ${sw.dropped.length === 1 ? 'it was' : 'they were'} left out.`,
      );
    }
    if (!sw.dates)
      parts.push(`The dates were not valid ${from} dates, so the latest ${to} records are chosen instead.`);
    if (sw.shortened)
      parts.push(
        `One request holds at most ${MAX_PERIODS.toLocaleString('en-ZA')} ${to} periods, so the To date was moved to ${sw.dates!.endDate.replace('T', ' ')}.`,
      );
    if (!sw.dataTypes.length) parts.push('Choose what to show.');
    return parts.join(' ');
  }

  // ---------- controls ----------

  const listeners: Array<[EventTarget, string, (e: Event) => void]> = [];
  const on = (target: EventTarget, type: string, fn: (e: Event) => void) => {
    target.addEventListener(type, fn);
    listeners.push([target, type, fn]);
  };
  on(root, 'change', (e) => onFormChange(e));
  on(root, 'submit', (e) => {
    e.preventDefault();
    // What is typed now is what runs: a change held back during the press, or not yet fired (Enter), first.
    flushFormChanges();
    applyFormChange();
    void actions.run();
  });
  on($('cancel'), 'click', () => actions.cancel());
  for (const b of root.querySelectorAll<HTMLButtonElement>('[data-tool]')) {
    on(b, 'click', () => {
      ctx.map()?.setTool(b.dataset.tool as DrawTool);
      for (const x of root.querySelectorAll('[data-tool]')) x.setAttribute('aria-pressed', String(x === b));
    });
  }
  // Drawing needs a pointer; with the keyboard, find the place and add a point at the centre.
  on($('point-at-centre'), 'click', () => {
    const view = ctx.map();
    if (!view) return;
    const c = view.map.getCenter();
    actions.loadGeometries([
      ...store.get().geometries,
      { id: `centre${Date.now()}`, kind: 'point', coordinates: [c.lng, c.lat] },
    ]);
  });
  on($('shape-text'), 'input', () => ($('shape-text-error').textContent = ''));
  on($('add-shape'), 'click', () => {
    const text = $<HTMLTextAreaElement>('shape-text');
    const read = readShapeText(text.value, `typed${Date.now()}`);
    $('shape-text-error').textContent = 'error' in read ? read.error : '';
    if ('error' in read) return;
    // Those already drawn came from the map and load again; any refusal is of a new shape.
    const refused = actions.loadGeometries([...store.get().geometries, ...read.geometries]);
    if (refused.length)
      $('shape-text-error').textContent =
        `The map could not draw ${refused.length === 1 ? 'this shape' : `${refused.length} shapes`}: ${refused.join('; ')}.`;
    const b = boundsOf(read.geometries);
    // Fields fill the view; points alone keep their surroundings (towns, stations) in sight.
    if (b)
      ctx.map()?.map.fitBounds(b, {
        padding: 60,
        maxZoom: read.geometries.every((g) => g.kind === 'point') ? 11 : 15,
        duration: 0,
      });
    if (!refused.length) text.value = '';
  });
  on($('delete-selected'), 'click', () => ctx.map()?.deleteSelected());
  on($('preview'), 'click', () => void preview());

  /** The layer a preview on the map shows ("raster temp mean"), or null when none is shown. */
  let previewOf: string | null = null;
  function previewKey(form: FormState): string {
    return form.source === 'raster' ? `raster ${form.dataType} ${form.subDataType}` : 'stations';
  }

  /** Shows one date of the chosen layer on the map, read whole by the engine Worker. */
  async function preview(): Promise<void> {
    const { form } = store.get();
    const layer = formLayer(dataset(), form);
    if (!layer) {
      store.set({ error: { field: '/options/subDataType', message: 'This dataset has no such layer.' } });
      return;
    }
    const scale = layer.timeScale;
    store.set({ status: 'Reading the layer for the preview…' });
    try {
      // The key of the From date's period (contract/periods.ts); a date that is none is named under From.
      const key = scale === null ? '' : periodKey(scale, parseDate(scale, form.startDate, 'startDate'));
      const grid = await ctx.engine.layerGrid({
        dataType: layer.dataType,
        subDataType: layer.subDataType,
        extent: layer.extent,
        period: key,
      });
      // The ramp is only needed once a preview is asked for.
      const { RAMP_CSS, paintGrid } = await import('./raster-preview.ts');
      // Another layer chosen while this one was read: its map would be shown under the wrong name.
      if (previewKey(store.get().form) !== previewKey(form)) {
        store.set({ status: '' });
        return;
      }
      ctx.map()?.showPreview(paintGrid(grid), grid.bbox);
      previewOf = previewKey(form);
      $('legend').hidden = false;
      $('legend').querySelector<HTMLElement>('.ramp')!.style.background = RAMP_CSS;
      $('legend-min').textContent = `${grid.min.toFixed(1)} ${grid.unit}`;
      $('legend-max').textContent = `${grid.max.toFixed(1)} ${grid.unit}`;
      const variant = layer.subDataType === '-' ? '' : `, ${subTypeName(layer.dataType, layer.subDataType)}`;
      store.set({
        status: `Showing ${layer.description}${variant}${key ? `, ${periodLabel(key, scale)}` : ''} on the map.`,
      });
    } catch (e) {
      const err = e instanceof ClimateQueryError ? errorOf(e) : { message: (e as Error).message };
      store.set({ status: '', error: { field: '/startDate', ...err } });
    }
  }
  on($('clear-all'), 'click', () => ctx.map()?.clear());

  return {
    update(state, previous) {
      if (state.dataset && (state === previous || state.dataset !== previous.dataset)) renderOptions(state.dataset);
      // A preview belongs to the layer it shows: another layer, variant or the station records take it away.
      if (previewOf !== null && state.form !== previous.form && previewKey(state.form) !== previewOf) {
        previewOf = null;
        ctx.map()?.showPreview(null);
        $('legend').hidden = true;
        if (state.status.startsWith('Showing ')) store.set({ status: '' });
      }
      const drawn = state.form !== written && (state.form !== previous.form || state.dataset !== previous.dataset);
      if (drawn || state === previous) renderForm(state.form);
      if (
        state === previous ||
        state.form !== previous.form ||
        state.geometries !== previous.geometries ||
        state.dataset !== previous.dataset
      ) {
        renderGeometries(state);
        renderRequest(state);
      }
      if (state.error && state.error !== previous.error) showError(state, state.error);
      if (state.running !== previous.running || state === previous) {
        $<HTMLButtonElement>('cancel').disabled = !state.running;
        $<HTMLButtonElement>('run').disabled = state.running;
      }
      if (state.status !== previous.status || state === previous) $('status').textContent = state.status;
    },
    dispose() {
      for (const [t, type, fn] of listeners) t.removeEventListener(type, fn);
      document.removeEventListener('pointerdown', onDown, true);
      document.removeEventListener('pointerup', onUp, true);
      document.removeEventListener('pointercancel', onUp, true);
    },
  };
}
