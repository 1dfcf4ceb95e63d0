/**
 * Map previews being built, shared: callers asking for the same preview while it is built share it
 * (its values are theirs to read, not to change), so a thousand map views of one date build it once.
 * A preview holds its whole grid while it is built, so previews together hold at most half the
 * engine's memory budget (the others wait their turn) and each is charged to it. One is built until
 * every caller has gone (each aborts on its own query budget) or the engine closes.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { abortable, onAbort } from '../io/abortable.ts';
import { ByteGate } from '../io/byte-gate.ts';
import { DEFAULT_MEMORY_BYTES, type MemoryBudget } from '../io/memory-budget.ts';
import type { LayerGrid } from './raster-reader.ts';

interface Build {
  work: Promise<LayerGrid>;
  controller: AbortController;
  callers: number;
}

export class PreviewBuilds {
  private readonly gate: ByteGate;
  private readonly building = new Map<string, Build>();

  constructor(
    /** Ends when the engine closes: every build stops. */
    private readonly lifetime: AbortSignal,
    private readonly budget?: MemoryBudget,
  ) {
    this.gate = new ByteGate((budget?.maxBytes ?? DEFAULT_MEMORY_BYTES) / 2);
  }

  /** The preview `key` (holding `bytes` while built), built by `build` unless a build of it is under way. */
  async share(
    key: string,
    bytes: number,
    build: (signal: AbortSignal) => Promise<LayerGrid>,
    signal?: AbortSignal,
  ): Promise<LayerGrid> {
    let b = this.building.get(key);
    if (!b) {
      const controller = new AbortController();
      const stop = onAbort(this.lifetime, () => controller.abort(this.lifetime.reason));
      const work = this.gate.run(
        bytes,
        async () => {
          this.budget?.charge(bytes);
          try {
            return await build(controller.signal);
          } finally {
            this.budget?.release(bytes);
          }
        },
        controller.signal,
      );
      const entry: Build = { work, controller, callers: 0 };
      const done = () => {
        stop();
        if (this.building.get(key) === entry) this.building.delete(key);
      };
      work.then(done, done);
      this.building.set(key, entry);
      b = entry;
    }
    b.callers++;
    try {
      return await abortable(b.work, signal);
    } finally {
      if (--b.callers === 0) {
        b.controller.abort(new ClimateQueryError('aborted', 'Every caller of this preview has gone.'));
        if (this.building.get(key) === b) this.building.delete(key);
      }
    }
  }
}
