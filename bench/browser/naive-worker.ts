/**
 * The naive way to serve station queries in a browser: download every file
 * a query touches whole (no Range requests), then answer with the engine's
 * own code. Speaks the engine worker's protocol (src/worker/protocol.ts),
 * so the page drives it like the real engine Worker.
 */
/// <reference lib="webworker" />
import { createClimateEngine, type ClimateEngine } from '../../src/engine/engine.ts';
import type { ByteSource } from '../../src/io/byte-source.ts';
import { warmWhenIdle, workerDataset, type WorkerDataset } from '../../src/worker/worker-dataset.ts';
import { responseMessage, type ToWorker } from '../../src/worker/protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

/** A byte source that downloads its file whole on the first read. */
function wholeFile(url: string): ByteSource {
  let bytes: Promise<Uint8Array> | undefined;
  return {
    url,
    async read(offset, length) {
      bytes ??= fetch(url).then(async (r) => {
        if (!r.ok) throw new Error(`GET ${url}: HTTP ${r.status}`);
        return new Uint8Array(await r.arrayBuffer());
      });
      const all = await bytes;
      return all.subarray(Math.min(offset, all.length), Math.min(offset + length, all.length));
    },
  };
}

let engine: ClimateEngine | undefined;
let takeAhead: WorkerDataset['take'] = () => undefined;
let touched: () => void = () => undefined;
/** Requests being answered. */
let busy = 0;
self.addEventListener('message', (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === 'init') {
    // The catalog as the page read it, taken as the engine Worker takes it.
    const dataset = workerDataset(msg);
    takeAhead = dataset.take;
    engine = createClimateEngine({ dataset: dataset.dataset, openByteSource: wholeFile });
    // As the engine Worker does: the catalog read as the Worker starts, the station index once idle.
    engine.catalog().catch(() => undefined);
    touched = warmWhenIdle(engine, () => busy > 0);
  } else if (msg.type === 'catalog' || msg.type === 'file') {
    takeAhead(msg);
  } else if (msg.type === 'request') {
    touched();
    busy++;
    // Sent as the engine Worker sends it, so the two differ only in how bytes are read.
    void engine!.handle(msg.request, { periodTables: msg.as !== 'json' }).then((response) => {
      busy--;
      touched();
      const { message, transfer } = responseMessage(msg.id, response, msg.as);
      self.postMessage(message, transfer);
    });
  }
});
