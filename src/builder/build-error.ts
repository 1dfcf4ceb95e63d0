/**
 * The one error every build throws (station builds, raster layers, index,
 * remove): a stable `code`, the file, row and column or the option at fault
 * where known, and a message that says what to do. The CLI prints it as
 * "Build error: …" and exits 2 (1 for `dataset_damaged` and `internal`:
 * src/node/cli-exit.ts). Every failure a build foresees is one of these;
 * anything else it throws comes from Node itself (a permission, a full disk).
 */

/**
 * - `invalid_input`: a file's content (a row, a column, a band) cannot be built as it is;
 * - `invalid_option`: an option is missing, malformed, or contradicts the inputs;
 * - `unreadable_input`: a file is missing or no reader can open it;
 * - `conflict`: the inputs disagree with each other or with the dataset (overlaps, another zone);
 * - `dataset_damaged`: the dataset being built into cannot be read (a cut or hand-edited catalog.json);
 * - `dataset_busy`: another command is changing the dataset (its lock is held: dataset/dataset-lock.ts);
 * - `unreachable`: a source to download from could not be reached (offline, or the host down);
 *   what was downloaded is kept, and the same command goes on from there;
 * - `internal`: the build's own check of what it wrote failed (a bug, or a disk that failed or
 *   filled); nothing was published, so the dataset is as it was.
 */
export type BuildErrorCode =
  | 'invalid_input'
  | 'invalid_option'
  | 'unreadable_input'
  | 'conflict'
  | 'dataset_damaged'
  | 'dataset_busy'
  | 'unreachable'
  | 'internal';

/** Where a build error lies, when known. */
export interface BuildErrorDetail {
  /** The input file. */
  file?: string;
  /** Its data row (from 1). */
  row?: number;
  /** Its column. */
  column?: string;
  /** The option at fault, as the API names it (`scale`, `dates`, `timeZone`). */
  option?: string;
  cause?: unknown;
}

/** A build that cannot go on, with what to do about it. */
export class BuildError extends Error {
  readonly code: BuildErrorCode;
  readonly file?: string;
  readonly row?: number;
  readonly column?: string;
  readonly option?: string;

  constructor(code: BuildErrorCode, message: string, detail: BuildErrorDetail = {}) {
    super(message, detail.cause === undefined ? undefined : { cause: detail.cause });
    this.name = 'BuildError';
    this.code = code;
    if (detail.file !== undefined) this.file = detail.file;
    if (detail.row !== undefined) this.row = detail.row;
    if (detail.column !== undefined) this.column = detail.column;
    if (detail.option !== undefined) this.option = detail.option;
  }
}
