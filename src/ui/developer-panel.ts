/**
 * The "For developers" panel: what the app sends, in the contract's own
 * names (endpoint, request JSON, a ready fetch() snippet, the layer's
 * extent code) and the raw error message, so the plain words in the form
 * never hide what a programmer needs to repeat the query.
 */

import { ClimateQueryError } from '../contract/errors.ts';
import { layersOf, validateRequest } from './form-rules.ts';
import { type Panel, type PanelContext, part } from './panel.ts';
import { buildRequest } from './query-request.ts';

/** A request as the panel shows it. */
export interface PanelRequest {
  path: string;
  body: Record<string, unknown>;
}

/** The fetch() call that repeats `req` from any page of this site (the service worker answers /api/). */
export function fetchSnippet(req: PanelRequest): string {
  const json = JSON.stringify(req.body, null, 2);
  return `const res = await fetch('.${req.path}', {\n  method: 'POST',\n  headers: { 'Content-Type': 'application/json' },\n  body: JSON.stringify(${json.replace(/\n/g, '\n  ')}),\n});\nconst answer = await res.json();`;
}

/**
 * The developer panel, on `#developer`: the request the form would send, the
 * layer's codes, and the raw error (the validator's, or the engine's last).
 */
export function developerPanel(ctx: PanelContext): Panel {
  const $ = (id: string) => part(ctx.root, id);
  const copies: Array<[HTMLElement, () => void]> = [];
  // Each copy button says "Copied" for a moment, since a copy is otherwise invisible.
  for (const [button, source] of [
    ['copy-json', 'request-json'],
    ['copy-fetch', 'fetch-snippet'],
  ] as const) {
    const b = $(button);
    const label = b.textContent ?? '';
    const copy = () => {
      void navigator.clipboard?.writeText($(source).textContent ?? '').then(
        () => {
          b.textContent = 'Copied';
          setTimeout(() => (b.textContent = label), 1500);
        },
        () => undefined,
      );
    };
    b.addEventListener('click', copy);
    copies.push([b, copy]);
  }
  const raw = (message: string) => ($('raw-error').textContent = message ? `Raw error: ${message}` : '');
  return {
    update(state, previous) {
      if (
        state === previous ||
        state.form !== previous.form ||
        state.geometries !== previous.geometries ||
        state.dataset !== previous.dataset
      ) {
        const req = buildRequest(state.form, state.geometries, layersOf(state.dataset));
        $('endpoint-info').textContent = req ? `Endpoint: POST ${req.path}` : 'No request yet: draw on the map first.';
        $('request-json').textContent = req ? JSON.stringify(req.body, null, 2) : '';
        $('fetch-snippet').textContent = req ? fetchSnippet(req) : '';
        const layer = layersOf(state.dataset).find(
          (l) => l.dataType === state.form.dataType && l.subDataType === state.form.subDataType,
        );
        $('layer-code').textContent =
          layer && state.form.source === 'raster'
            ? `Layer: dataType "${layer.dataType}", subDataType "${layer.subDataType}", dataExtent "${layer.extent}", timeScale ${layer.timeScale === null ? 'none' : `"${layer.timeScale}"`}.`
            : '';
        let message = '';
        try {
          if (req) validateRequest(state.dataset, req.endpoint, req.body);
        } catch (e) {
          if (!(e instanceof ClimateQueryError)) throw e;
          message = e.message;
        }
        raw(message);
      }
      // The message as the engine wrote it (contract names: wkts, startDate…).
      if (state.error && state.error !== previous.error) raw(state.error.message);
    },
    dispose() {
      for (const [b, copy] of copies) b.removeEventListener('click', copy);
    },
  };
}
