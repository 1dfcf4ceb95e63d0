// A separate web app using the packed climate-query package, as docs/library.md shows.
import { createEngineClient, registerClimateServiceWorker } from 'climate-query';
import EngineWorker from 'climate-query/worker?worker';

const engine = createEngineClient({ dataset: new URL('./data/', location.href), worker: new EngineWorker() });
const status = document.getElementById('status')!;

async function run(): Promise<void> {
  await registerClimateServiceWorker({ scriptUrl: './sw.js', engine });
  const request = JSON.parse(new URLSearchParams(location.search).get('request') ?? 'null') as {
    path: string;
    body: unknown;
  } | null;
  if (!request) return;
  const viaLibrary = await engine.handle({ method: 'POST', path: request.path, body: JSON.stringify(request.body) });
  const res = await fetch(`.${request.path}`, { method: 'POST', body: JSON.stringify(request.body) });
  const viaFetch = { status: res.status, body: await res.json() };
  (window as unknown as { result: unknown }).result = { viaLibrary, viaFetch };
  status.textContent = 'done';
}
run().catch((e: unknown) => {
  (window as unknown as { result: unknown }).result = { error: String(e) };
});
