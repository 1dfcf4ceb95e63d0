/**
 * The "For developers" panel: what the app sends, in the contract's own
 * names (endpoint, request JSON, a ready fetch() snippet, the layer's
 * extent code) and the raw error message, so the plain words in the form
 * never hide what a programmer needs to repeat the query.
 */

/** A request as the panel shows it. */
export interface PanelRequest {
  path: string;
  body: Record<string, unknown>;
}

const el = (id: string) => document.getElementById(id)!;

/** The fetch() call that repeats `req` from any page of this site (the service worker answers /api/). */
export function fetchSnippet(req: PanelRequest): string {
  const json = JSON.stringify(req.body, null, 2);
  return `const res = await fetch('.${req.path}', {\n  method: 'POST',\n  headers: { 'Content-Type': 'application/json' },\n  body: JSON.stringify(${json.replace(/\n/g, '\n  ')}),\n});\nconst answer = await res.json();`;
}

/** Shows `req` (or nothing yet) in the panel. */
export function renderDeveloperPanel(req: PanelRequest | null): void {
  el('endpoint-info').textContent = req ? `Endpoint: POST ${req.path}` : 'No request yet: draw on the map first.';
  el('request-json').textContent = req ? JSON.stringify(req.body, null, 2) : '';
  el('fetch-snippet').textContent = req ? fetchSnippet(req) : '';
}

/** The error as the engine or validator wrote it (contract names: wkts, startDate…); empty clears it. */
export function showRawError(message: string): void {
  el('raw-error').textContent = message ? `Raw error: ${message}` : '';
}

/** Wires the copy buttons; each says "Copied" for a moment, since a copy is otherwise invisible. */
export function setUpCopyButtons(): void {
  for (const [button, source] of [['copy-json', 'request-json'], ['copy-fetch', 'fetch-snippet']] as const) {
    const b = el(button) as HTMLButtonElement;
    const label = b.textContent ?? '';
    b.addEventListener('click', () => {
      void navigator.clipboard?.writeText(el(source).textContent ?? '').then(
        () => {
          b.textContent = 'Copied';
          setTimeout(() => (b.textContent = label), 1500);
        },
        () => undefined,
      );
    });
  }
}
