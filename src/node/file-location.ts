/** A dataset in a local folder (Node only). */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath, join } from 'node:path';
import { ClimateQueryError } from '../contract/errors.ts';
import { urlLocation, type DatasetLocation } from '../dataset/location.ts';
import { checkDatasetPath } from '../dataset/dataset-path.ts';
import { createFileSource } from '../io/file-source.ts';

/** A dataset in folder `dir`. Paths that leave the folder are refused (`dataset_unavailable`). */
export function fileLocation(dir: string): DatasetLocation {
  const root = resolvePath(dir);
  const inside = (path: string) => join(root, checkDatasetPath(path, join(root, 'catalog.json')));
  return {
    base: root,
    resolve: inside,
    open: (path, expected) => createFileSource(inside(path), expected),
    async readText(path) {
      const file = inside(path);
      try {
        return await readFile(file, 'utf8');
      } catch (cause) {
        throw new ClimateQueryError('dataset_unavailable', `Cannot read ${file}: ${(cause as Error).message}. Build a dataset there with \`climate-query build\` or \`climate-query demo\`.`, { cause });
      }
    },
  };
}

/** A folder or an http(s) URL, as given on the command line. */
export function locationOf(dataset: string): DatasetLocation {
  return /^https?:\/\//i.test(dataset) ? urlLocation(dataset) : fileLocation(dataset);
}
