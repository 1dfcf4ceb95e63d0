/**
 * The CLI's one mapping from what a command throws to its exit status and
 * the line it prints, the same for every command (each command's usage lists
 * these statuses):
 *
 * - 2: the caller's doing — a usage error, a request the contract refuses
 *   (4xx), a build's input or option it cannot take;
 * - 1: the data's or the machine's — a dataset missing, unreadable, damaged or
 *   changed (`dataset_unavailable`, `dataset_changed`, a damaged catalog.json
 *   a build refuses, a dataset another command is changing), a download's host
 *   out of reach, a timeout, an abort, anything unexpected.
 *
 * Words: a build's own error is "Build error: …"; the contract's errors are
 * "Error: …" with their code, whatever the command (a damaged catalog read
 * by `layers` is not a build error).
 */
import { BuildError } from '../builder/build-error.ts';
import { ClimateQueryError } from '../contract/errors.ts';

/** Exit status of a contract error: 2 for a request's fault, 1 for the data's or the machine's. */
export function exitStatusOfCode(status: number, code?: string): number {
  if (status === 200) return 0;
  if (code === 'dataset_changed' || code === 'aborted') return 1;
  return status >= 400 && status < 500 ? 2 : 1;
}

/** The exit status and the stderr line for `err`, thrown by a command. */
export function exitFor(err: unknown): { status: number; text: string } {
  if (err instanceof BuildError) {
    return {
      status: ['dataset_damaged', 'dataset_busy', 'unreachable', 'internal'].includes(err.code) ? 1 : 2,
      text: `Build error: ${err.message}`,
    };
  }
  if (err instanceof ClimateQueryError) {
    return { status: exitStatusOfCode(err.status, err.code), text: `Error (${err.code}): ${err.message}` };
  }
  return { status: 1, text: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}
