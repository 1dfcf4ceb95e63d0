/** A dataset in a local folder (Node only). */
import { readFile, realpath, stat } from 'node:fs/promises';
import { resolve as resolvePath, join } from 'node:path';
import { ClimateQueryError } from '../contract/errors.ts';
import { MAX_TEXT_BYTES, urlLocation, type DatasetLocation } from '../dataset/location.ts';
import { checkDatasetPath } from '../dataset/dataset-path.ts';
import { createFileSource, realPathWithin, type FileSourceOptions } from '../io/file-source.ts';

/** Options of {@link fileLocation}. */
export interface FileLocationOptions {
  /**
   * Follow symlinks that lead out of the folder (a `stations` folder linked to another disk).
   * Default false: every file's real path must lie inside the folder, as `serve` does for its
   * static files, so a link planted in a dataset cannot expose other files through the API.
   */
  followLinks?: boolean;
}

/** A dataset in folder `dir`. Paths that leave the folder, by name or by symlink, are refused (`dataset_unavailable`). */
export function fileLocation(dir: string, options: FileLocationOptions = {}): DatasetLocation {
  const root = resolvePath(dir);
  const inside = (path: string) => join(root, checkDatasetPath(path, join(root, 'catalog.json')));
  // Resolved once, on the first read; a failure (the folder is gone) is not kept.
  let realRoot: Promise<string> | undefined;
  const within = () => {
    realRoot ??= realpath(root).catch((err: unknown) => {
      realRoot = undefined;
      throw err;
    });
    return realRoot;
  };
  const sourceOptions = (): FileSourceOptions => (options.followLinks ? {} : { within: within() });
  return {
    base: root,
    resolve: inside,
    open: (path, expected) => createFileSource(inside(path), expected, sourceOptions()),
    async readText(path) {
      const file = inside(path);
      try {
        const real = options.followLinks ? file : await realPathWithin(file, within());
        const { size } = await stat(real);
        if (size > MAX_TEXT_BYTES) {
          throw new ClimateQueryError(
            'dataset_unavailable',
            `${file} holds ${size.toLocaleString('en')} bytes, more than the ${MAX_TEXT_BYTES.toLocaleString('en')} a catalog may; it is not a dataset's catalog.`,
          );
        }
        return await readFile(real, 'utf8');
      } catch (cause) {
        if (cause instanceof ClimateQueryError) throw cause;
        throw new ClimateQueryError(
          'dataset_unavailable',
          `Cannot read ${file}: ${(cause as Error).message}. Build a dataset there with \`climate-query build\` or \`climate-query demo\`.`,
          { cause },
        );
      }
    },
  };
}

/** A folder or an http(s) URL, as given on the command line. */
export function locationOf(dataset: string, options: FileLocationOptions = {}): DatasetLocation {
  return /^https?:\/\//i.test(dataset) ? urlLocation(dataset) : fileLocation(dataset, options);
}
