/**
 * What `layers add` reads of a source referenced in place, by key under its root: a folder inside
 * the dataset, or an http(s) URL where it is published. One shape for both, so a store's metadata,
 * its coordinates and its shard sizes are read and checked the same way wherever they are. Every
 * read is bounded (the bytes asked for, the read timeouts of io/timed-fetch.ts); over HTTP a source
 * cannot be listed, so a store there is found by its consolidated metadata or the array named.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeHostAnswer } from '../../io/host-answer.ts';
import { DEFAULT_READ_TIMEOUTS, DEFAULT_RETRY, timedFetch, withRetries } from '../../io/timed-fetch.ts';
import { BuildError } from '../build-error.ts';
import { isForeignPath } from '../../dataset/foreign.ts';
import type { DatasetLocation } from '../../dataset/location.ts';
import { type KerchunkRefs, referencedPath } from '../../rasters/kerchunk-refs.ts';

/** A source's keys. */
export interface SourceKeys {
  /** The root as the catalog names it: a path inside the dataset, or the URL. */
  readonly root: string;
  /** Whether the source is read over HTTP. */
  readonly remote: boolean;
  /** The bytes of `key` ('' for the root itself, a file), at most `max` (else refused), or undefined where there is none. */
  bytes(key: string, max: number): Promise<Uint8Array | undefined>;
  /** The size of `key` in bytes, or null where there is none. */
  size(key: string): Promise<number | null>;
  /** The folders right under the root that hold `marker` (`.zarray`, `zarr.json`); null where the source cannot be listed. */
  folders(marker: string): Promise<string[] | null>;
}

/** A folder's keys (`dir` is where it is; `root` how the catalog names it). */
export function folderKeys(dir: string, root: string): SourceKeys {
  return {
    root,
    remote: false,
    async bytes(key, max) {
      const file = join(dir, key);
      const st = await stat(file).catch(() => null);
      if (!st?.isFile()) return undefined;
      if (st.size > max) throw tooLarge(`${root}/${key}`, st.size, max);
      return new Uint8Array(await readFile(file));
    },
    async size(key) {
      const st = await stat(join(dir, key)).catch(() => null);
      return st?.isFile() ? st.size : null;
    },
    async folders(marker) {
      return (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, marker)))
        .map((e) => e.name);
    },
  };
}

/**
 * An http(s) URL's keys, read with `fetch`. A key the host answers 404 for is absent (so is 403:
 * a public bucket that does not list answers a missing key with it).
 */
export function urlKeys(url: string, doFetch: typeof fetch = globalThis.fetch.bind(globalThis)): SourceKeys {
  const root = url.replace(/\/+$/, '');
  const request = async (key: string, method: 'GET' | 'HEAD', max: number) =>
    withRetries(async () => {
      const at = key === '' ? root : `${root}/${key}`;
      const answer = await timedFetch(doFetch, at, { method }, DEFAULT_READ_TIMEOUTS);
      const { response } = answer;
      if (response.status === 404 || response.status === 403) {
        await answer.discard();
        return undefined;
      }
      if (!response.ok) {
        await answer.discard();
        throw new BuildError(
          'unreadable_input',
          `${at} could not be read: the host answered ${describeHostAnswer(response)}.`,
          {
            file: at,
          },
        );
      }
      const length = Number(response.headers.get('Content-Length') ?? Number.NaN);
      if (method === 'HEAD') {
        await answer.discard();
        if (!Number.isSafeInteger(length))
          throw new BuildError('unreadable_input', `${at}: the host states no Content-Length for it.`, { file: at });
        return { size: length };
      }
      if (Number.isSafeInteger(length) && length > max) {
        await answer.discard();
        throw tooLarge(at, length, max);
      }
      return { bytes: await answer.body(max) };
    }, DEFAULT_RETRY);
  return {
    root,
    remote: true,
    bytes: async (key, max) => (await request(key, 'GET', max))?.bytes,
    size: async (key) => (await request(key, 'HEAD', 0))?.size ?? null,
    folders: async () => null,
  };
}

function tooLarge(at: string, bytes: number, max: number): BuildError {
  return new BuildError('invalid_input', `${at} holds ${bytes} bytes, more than the ${max} this reads of it.`, {
    file: at,
  });
}

/**
 * A kerchunk reference's keys (src/rasters/kerchunk-refs.ts): inline bytes, or ranges of the files
 * it names, read through `files` (the dataset's location: a relative file is confined to the
 * dataset, a URL read as the engine would). `root` is how the catalog names the reference.
 */
export function referenceKeys(refs: KerchunkRefs, root: string, files: DatasetLocation): SourceKeys {
  const at = async (key: string) => {
    const ref = await refs.get(key);
    if (!ref || 'inline' in ref) return ref;
    const path = referencedPath(root, ref.url);
    if (path === null)
      throw new BuildError(
        'invalid_input',
        `${root}: key ${key} is at ${ref.url}; this reads http(s) URLs and paths beside the reference.`,
        {
          file: root,
        },
      );
    return { ...ref, path };
  };
  return {
    root,
    remote: isForeignPath(root),
    async bytes(key, max) {
      const ref = await at(key);
      if (!ref) return undefined;
      if ('inline' in ref) {
        if (ref.inline.length > max) throw tooLarge(`${root} ${key}`, ref.inline.length, max);
        return ref.inline;
      }
      if ((ref.length ?? 0) > max) throw tooLarge(`${root} ${key}`, ref.length!, max);
      const source = files.open(ref.path);
      try {
        const bytes = await source.read(ref.offset, ref.length ?? max + 1);
        if (bytes.length > max) throw tooLarge(`${root} ${key}`, bytes.length, max);
        if (ref.length !== null && bytes.length !== ref.length)
          throw new BuildError('invalid_input', `${root}: key ${key} lies past the end of ${ref.url}.`, { file: root });
        return bytes;
      } finally {
        await source.close?.().catch(() => undefined);
      }
    },
    async size(key) {
      const ref = await at(key);
      if (!ref) return null;
      return 'inline' in ref ? ref.inline.length : ref.length;
    },
    async folders(marker) {
      const out = new Set<string>();
      for (const k of refs.keys())
        if (k.endsWith(`/${marker}`) && k.indexOf('/') === k.length - marker.length - 1)
          out.add(k.slice(0, -marker.length - 1));
      return [...out];
    },
  };
}

/** The files a reference reads from (dataset paths or URLs), each once. */
export async function referenceTargets(refs: KerchunkRefs, root: string): Promise<string[]> {
  const out = new Set<string>();
  for (const url of await refs.urls()) {
    const path = referencedPath(root, url);
    if (path === null)
      throw new BuildError(
        'invalid_input',
        `${root}: a chunk is at ${url}; this reads http(s) URLs and paths beside the reference.`,
        {
          file: root,
        },
      );
    out.add(path);
  }
  return [...out];
}
