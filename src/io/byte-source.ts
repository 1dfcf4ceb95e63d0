/**
 * Where a dataset's bytes come from, for both readers (station Parquet and
 * raster GeoTIFF). The engine needs exactly one thing from a file: "give me
 * these bytes". Keeping that interface this narrow lets the same engine read
 * over HTTP Range requests (http-source.ts, browser and Node), from local
 * files (file-source.ts, Node) or from anything a caller wraps, and lets
 * tests count what is read. Free of node:* imports: it is bundled for the
 * browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';

/** A read-only file addressed by byte offsets. */
export interface ByteSource {
  /** Where the bytes come from, for messages and as the cache key of opened files. */
  readonly url: string;
  /**
   * Reads `length` bytes starting at `offset`. Returns fewer bytes only when
   * the file ends first (none when `offset` is at or past the end).
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Reads each `[start, end)` of `ranges` (ascending, not overlapping), as {@link read} would, in
   * as few requests as the source can: one promise per range, each settling on its own; optional
   * (without it each range is one read). Over HTTP, one request when the host answers several
   * ranges at once.
   */
  readRanges?(ranges: ReadonlyArray<readonly [number, number]>, signal?: AbortSignal): Array<Promise<Uint8Array>>;
  /** Releases what the source holds open (file handles); optional. */
  close?(): Promise<void>;
}

/** What the catalog says of a file: a response that disagrees means the file changed since the catalog was written. */
export interface ExpectedFile {
  /** Size in bytes. */
  bytes?: number;
  /** Lower-case hex SHA-256 of the whole file; checked whenever the whole file is downloaded. */
  sha256?: string;
}

/** Errors that refuse a file for what it is (a link out of the dataset), not for being absent. */
const refusals = new WeakSet<object>();

/**
 * Marks `error` as a refusal of the file for what it is (a link leading out of the dataset): a
 * reader reports it as it is, never as a dataset changed under it. Returns the error.
 */
export function refusal<E extends object>(error: E): E {
  refusals.add(error);
  return error;
}

/** Whether `error` refuses a file for what it is ({@link refusal}). */
export function isRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && refusals.has(error);
}

/** Errors of a file that is not there at all (a 404, ENOENT), as opposed to one that failed to be read. */
const absences = new WeakSet<object>();

/**
 * Marks `error` as saying the file does not exist (HTTP 404, ENOENT). A Zarr store may leave a
 * chunk out (its fill value then stands for it); every other reader treats it as any failure.
 */
export function absence<E extends object>(error: E): E {
  absences.add(error);
  return error;
}

/** Whether `error`, or an error it wraps, says the file does not exist ({@link absence}). */
export function isAbsence(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    if (absences.has(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Maps a failed read to `aborted` (the caller gave up) or `dataset_unavailable` (the file is not there). */
export function asSourceError(err: unknown, url: string, signal?: AbortSignal): ClimateQueryError {
  if (err instanceof ClimateQueryError) return err;
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  if (signal?.aborted || name === 'AbortError') {
    return new ClimateQueryError('aborted', 'The request was aborted.', { cause: err });
  }
  const detail = err instanceof Error ? err.message : String(err);
  const error = new ClimateQueryError('dataset_unavailable', `Reading ${url} failed: ${detail}`, { cause: err });
  return (err as { code?: unknown } | null)?.code === 'ENOENT' ? absence(error) : error;
}
