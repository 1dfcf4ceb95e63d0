/** A dataset in a local folder (Node only). */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath, join } from 'node:path';
import { ClimateQueryError } from '../contract/errors.ts';
import { urlLocation, type DatasetLocation } from '../dataset/location.ts';

/** A dataset in folder `dir`. */
export function fileLocation(dir: string): DatasetLocation {
  const root = resolvePath(dir);
  return {
    base: root,
    resolve: (path) => join(root, path),
    async readText(path) {
      try {
        return await readFile(join(root, path), 'utf8');
      } catch (cause) {
        throw new ClimateQueryError('dataset_unavailable', `Cannot read ${join(root, path)}: ${(cause as Error).message}. Build a dataset there with \`climate-query build\` or \`climate-query demo\`.`, { cause });
      }
    },
  };
}

/** A folder or an http(s) URL, as given on the command line. */
export function locationOf(dataset: string): DatasetLocation {
  return /^https?:\/\//i.test(dataset) ? urlLocation(dataset) : fileLocation(dataset);
}
