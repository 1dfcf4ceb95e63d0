/**
 * Local files as a {@link ByteSource}, for Node (CLI, tests, servers). Kept
 * apart from byte-source.ts so browser bundles never pull in node:fs.
 */
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { relative, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClimateQueryError } from '../contract/errors.ts';
import { asSourceError, type ByteSource, type ExpectedFile, refusal } from './byte-source.ts';
import { createHttpSource } from './http-source.ts';

/** Options of {@link createFileSource}. */
export interface FileSourceOptions {
  /**
   * The real path of the dataset folder (symlinks resolved): the file's real path must lie in it,
   * so a link inside the folder cannot make the engine read a file outside. Absent: not checked.
   */
  within?: Promise<string> | string;
}

/**
 * The real path of `path` (every symlink resolved), which must lie inside `realRoot`; throws
 * `dataset_unavailable` for one that leads out, saying how to trust the folder.
 */
export async function realPathWithin(path: string, realRoot: Promise<string> | string): Promise<string> {
  const [root, real] = await Promise.all([realRoot, realpath(path)]);
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw refusal(
      new ClimateQueryError(
        'dataset_unavailable',
        `${path} is a link to ${real}, outside the dataset folder ${root}; the engine reads only files inside it. Copy the file into the folder, or trust its links with --follow-links (fileLocation(dir, { followLinks: true })).`,
      ),
    );
  }
  return real;
}

/**
 * A {@link ByteSource} over a local file. The handle is opened on the first
 * read and kept, because the engine reads the same few files again and again
 * (an open handle keeps reading the version it opened, even when the file is
 * replaced meanwhile). A file whose size differs from `expected.bytes` fails
 * with `dataset_changed` rather than answer from another version.
 */
export function createFileSource(
  pathOrFileUrl: string,
  expected: ExpectedFile = {},
  options: FileSourceOptions = {},
): ByteSource {
  const path = pathOrFileUrl.startsWith('file:') ? fileURLToPath(pathOrFileUrl) : pathOrFileUrl;
  let handle: Promise<FileHandle> | null = null;
  // After close(), reads still under way elsewhere (a query that failed on another file keeps
  // its other reads going) must not open the file again: that handle would never be closed.
  let closed = false;
  return {
    url: pathOrFileUrl,
    async read(offset, length, signal) {
      if (signal?.aborted)
        throw asSourceError(signal.reason ?? new DOMException('aborted', 'AbortError'), path, signal);
      if (closed)
        throw new ClimateQueryError(
          'aborted',
          `${path} was closed (the dataset was reloaded) while a read was waiting.`,
        );
      const opening = (handle ??= (options.within ? realPathWithin(path, options.within) : Promise.resolve(path))
        .then((real) => open(real, 'r'))
        .then(async (fh) => {
          const { size } = await fh.stat();
          if (expected.bytes !== undefined && size !== expected.bytes) {
            await fh.close().catch(() => undefined);
            throw new ClimateQueryError(
              'dataset_changed',
              `${path} has ${size} bytes where the dataset records ${expected.bytes}: it changed after the dataset was built. If a redeploy is under way, ask again in a moment; otherwise rebuild or redeploy the dataset whole.`,
            );
          }
          return fh;
        }));
      let fh: FileHandle;
      try {
        fh = await opening;
      } catch (err) {
        // Only a failed open is forgotten (the next read tries again); an open handle is kept until close().
        if (handle === opening) handle = null;
        throw asSourceError(err, path, signal);
      }
      try {
        const buffer = new Uint8Array(Math.max(0, length));
        let filled = 0;
        // A single read may return less than asked even before the end; loop until EOF.
        while (filled < buffer.length) {
          const { bytesRead } = await fh.read(buffer, filled, buffer.length - filled, offset + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return filled === buffer.length ? buffer : buffer.subarray(0, filled);
      } catch (err) {
        throw asSourceError(err, path, signal);
      }
    },
    async close() {
      closed = true;
      const h = handle;
      handle = null;
      if (h) await h.then((fh) => fh.close()).catch(() => undefined);
    },
  };
}

/**
 * The default `openSource` for Node: `file:` URLs and plain paths read the
 * disk, everything else goes through HTTP Range requests.
 */
export function openLocalOrHttpSource(url: string, expected?: ExpectedFile): ByteSource {
  if (url.startsWith('file:') || !/^[a-z][a-z0-9+.-]*:/i.test(url) || /^[a-z]:[\\/]/i.test(url))
    return createFileSource(url, expected);
  return createHttpSource(url, expected ? { expected } : {});
}
