/**
 * Compresses (zlib) and writes a store's chunk files on worker threads, so
 * the build's main thread cuts the next strip while earlier chunks are
 * compressed: on two cores a daily year of the real-size grid (32,798
 * chunks, 0.48 ms each) then takes the time of the slower of the two, not
 * their sum. Node's own asynchronous zlib is no help here: measured at
 * 0.69 ms a chunk against 0.48 ms synchronously, its per-call stream
 * overhead outweighing its thread pool.
 *
 * The worker is a few lines of plain JavaScript given as text (only Node's
 * own modules), so it runs the same from TypeScript sources under tsx, under
 * vitest and from the compiled package.
 */
import { Worker } from 'node:worker_threads';
import { DIGEST_BYTES } from '../rasters/chunk-digest.ts';

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { deflateSync } = require('node:zlib');
const { writeFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
parentPort.on('message', ({ id, level, jobs }) => {
  let bytes = 0;
  const digests = [];
  try {
    for (const job of jobs) {
      const z = deflateSync(job.data, { level });
      writeFileSync(job.path, z);
      bytes += z.length;
      // The object's digest as src/rasters/chunk-digest.ts defines it: SHA-256 of the prefix, then the stored bytes.
      if (job.prefix) digests.push([job.slot, createHash('sha256').update(job.prefix).update(z).digest().subarray(0, 8)]);
    }
    parentPort.postMessage({ id, objects: jobs.length, bytes, digests });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

interface Reply {
  id: number;
  objects?: number;
  bytes?: number;
  digests?: Array<[number, Uint8Array]>;
  error?: string;
}

/** Where a written object's digest goes: its slot in the store's digests, and what the digest starts from. */
export interface DigestJob {
  slot: number;
  prefix: Uint8Array;
}

/** A pool of chunk-writing threads. */
export class ChunkWriters {
  private readonly workers: Worker[];
  private readonly waiting = new Map<number, { resolve(): void; reject(err: Error): void }>();
  private readonly inFlight = new Set<Promise<void>>();
  private batch: Array<{ path: string; data: Uint8Array; slot?: number; prefix?: Uint8Array }> = [];
  private nextId = 0;
  private turn = 0;
  private failure: Error | null = null;
  objects = 0;
  bytes = 0;

  constructor(
    private readonly level: number,
    threads = 2,
    /** The store's digests, filled at each object's slot ({@link DIGEST_BYTES} bytes a slot) as it is written. */
    private readonly digests?: Uint8Array,
  ) {
    this.workers = Array.from({ length: Math.max(1, threads) }, () => {
      const w = new Worker(WORKER_SOURCE, { eval: true });
      w.on('message', (r: Reply) => this.settle(r));
      w.on('error', (err) => this.fail(err));
      return w;
    });
  }

  /**
   * Queues `data` to be compressed and written at `path`, and its digest recorded at `digest.slot`;
   * the bytes are handed over (do not reuse them).
   */
  add(path: string, data: Uint8Array, digest?: DigestJob): void {
    if (this.failure) throw this.failure;
    this.batch.push(digest ? { path, data, slot: digest.slot, prefix: digest.prefix } : { path, data });
  }

  /**
   * Sends what is queued to the next thread, then waits while more than `maxBatches` batches
   * are in flight (so memory stays a few strips, however fast the main thread cuts).
   */
  async send(maxBatches = 4): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.batch.length > 0) {
      const jobs = this.batch;
      this.batch = [];
      const id = this.nextId++;
      const done = new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
      const tracked = done.finally(() => this.inFlight.delete(tracked));
      tracked.catch(() => undefined);
      this.inFlight.add(tracked);
      const worker = this.workers[this.turn++ % this.workers.length]!;
      worker.postMessage(
        { id, level: this.level, jobs },
        jobs.map((j) => j.data.buffer as ArrayBuffer),
      );
    }
    while (this.inFlight.size > maxBatches) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }

  /** Sends what is queued and waits for every batch; throws the first failure. */
  async finish(): Promise<void> {
    await this.send(0);
  }

  /** Stops the threads (after {@link finish}, or to abandon the rest). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private settle(r: Reply): void {
    const w = this.waiting.get(r.id);
    this.waiting.delete(r.id);
    if (r.error !== undefined) {
      const err = new Error(`Writing chunks failed: ${r.error}`);
      this.failure ??= err;
      w?.reject(err);
      return;
    }
    this.objects += r.objects ?? 0;
    this.bytes += r.bytes ?? 0;
    for (const [slot, d] of r.digests ?? []) this.digests?.set(d, slot * DIGEST_BYTES);
    w?.resolve();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
