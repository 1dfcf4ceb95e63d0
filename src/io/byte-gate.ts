/**
 * Admits work by the bytes it will hold at once: jobs run while their sum
 * stays within a bound, the rest wait in order (a job larger than the bound
 * runs alone). Map previews go through one: each holds a whole grid of
 * values while it is built, and ten thousand at once held 2.8 GB
 * (docs/reliability.md). A waiting job leaves the queue when its signal aborts.
 */
export class ByteGate {
  private used = 0;
  private readonly waiting: Array<{ bytes: number; go: () => void }> = [];

  constructor(readonly maxBytes: number) {}

  /** Runs `work` once `bytes` fit beside the jobs running; rejects with the signal's reason if it aborts first. */
  async run<T>(bytes: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(bytes, signal);
    try {
      return await work();
    } finally {
      this.used -= bytes;
      this.pump();
    }
  }

  /** Bytes of the jobs running now. */
  get running(): number {
    return this.used;
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.maxBytes;
  }

  private enter(bytes: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiting.length === 0 && this.fits(bytes)) {
      this.used += bytes;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason);
        this.pump();
      };
      const entry = {
        bytes,
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          this.used += bytes;
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) this.waiting.shift()!.go();
  }
}
