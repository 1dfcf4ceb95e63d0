/**
 * Which foreign sources a Node engine (the CLI's queries, `serve`) may fetch. A catalog is data —
 * copied, merged, maybe someone else's — and `serve` answers anyone who can reach it, so a URL a
 * catalog names is fetched only when its origin is one the operator allowed (`--allow-origin`),
 * and never from a loopback, private, link-local or otherwise internal address (the cloud's
 * metadata service at 169.254.169.254, the machine's own ports): an allowed name that resolves to
 * one is refused, and so is a redirect anywhere else. An origin the operator names by its IP
 * address (`http://10.0.0.5:9000`) is their explicit choice and is allowed as named.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ClimateQueryError } from '../contract/errors.ts';
import { refusal } from '../io/byte-source.ts';
import { truncate } from '../contract/quote.ts';
import { directForeign, foreignUrlProblem, type ForeignOpener, noForeign } from '../dataset/foreign.ts';

/** Redirects followed, each checked as the first request was. */
const MAX_REDIRECTS = 5;

/** Addresses no foreign read may reach unless named: RFC 6890's special-purpose blocks. */
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  // ::, ::1 and the IPv4-compatible ::a.b.c.d.
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['fec0::', 10],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(net, bits, 'ipv6');

/** Whether `address` (an IP) is internal; an IPv4-mapped IPv6 address is judged as its IPv4 one. */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** `origin` as given to `--allow-origin`, normalised (`https://host[:port]`), or why it is not one. */
export function parseAllowedOrigin(origin: string): string {
  const problem = foreignUrlProblem(origin);
  const url = problem ? null : new URL(origin);
  if (!url || url.pathname !== '/' || origin.replace(/\/$/, '') !== url.origin.replace(/\/$/, '')) {
    // A caller's mistake, made before any query: said at once, not as an answer's error.
    throw new TypeError(
      `--allow-origin ${truncate(origin)} is not an origin: give the scheme, host and port only (https://data.example.org).`,
    );
  }
  return url.origin;
}

/** Why `url` may not be fetched under `allowed`, or null; resolves its host's addresses. */
async function whyRefused(url: URL, allowed: ReadonlySet<string>): Promise<string | null> {
  if (!allowed.has(url.origin))
    return `its origin ${url.origin} is not one this engine was allowed to read (--allow-origin ${url.origin})`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Named by address: the operator's own choice.
  if (isIP(host) !== 0) return null;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return `its host ${host} could not be resolved`;
  }
  const inside = addresses.find((a) => isInternalAddress(a.address));
  return inside
    ? `its host ${host} resolves to ${inside.address}, an internal address (loopback, private or link-local); allow it by that address if it is meant`
    : null;
}

/**
 * A fetch that reads only from `allowed` origins, refuses internal addresses and checks each
 * redirect as the first request (the platform's own redirect handling would follow one anywhere).
 * The check resolves the name before the request does; a host answering another address to the
 * second lookup would get past it, and only an allowed origin's host can try.
 */
export function guardedFetch(allowed: ReadonlySet<string>, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    for (let hop = 0; ; hop++) {
      const why = await whyRefused(url, allowed);
      if (why)
        throw refusal(new ClimateQueryError('dataset_unavailable', `${truncate(url.href)} was not read: ${why}.`));
      const response = await base(url, { ...init, redirect: 'manual' });
      const to = response.headers.get('Location');
      if (response.status < 300 || response.status >= 400 || !to) return response;
      await response.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS)
        throw refusal(
          new ClimateQueryError(
            'dataset_unavailable',
            `${truncate(url.href)} redirects more than ${MAX_REDIRECTS} times.`,
          ),
        );
      url = new URL(to, url);
      if (foreignUrlProblem(url.href.replace(/[?#].*$/, '')) !== null)
        throw refusal(
          new ClimateQueryError('dataset_unavailable', `${truncate(url.href)}: a redirect to something not http(s).`),
        );
    }
  };
}

/**
 * The foreign opener of a Node engine: reads the `allowOrigins` (as `--allow-origin` gives them)
 * through {@link guardedFetch}; with none, reads no foreign source and says how to allow one.
 */
export function nodeForeign(allowOrigins: readonly string[] = []): ForeignOpener {
  if (allowOrigins.length === 0)
    return noForeign(
      'the catalog names this source outside the dataset, and no origin was allowed: pass --allow-origin with its origin (scheme, host and port) to read it.',
    );
  const allowed = new Set(allowOrigins.map(parseAllowedOrigin));
  const direct = directForeign({ fetch: guardedFetch(allowed) });
  return {
    check(url) {
      direct.check(url);
      const origin = new URL(url).origin;
      if (!allowed.has(origin))
        throw refusal(
          new ClimateQueryError(
            'dataset_unavailable',
            `${truncate(url)} was not read: its origin ${origin} is not one this engine was allowed to read (--allow-origin ${origin}).`,
          ),
        );
    },
    open: (url, expected) => direct.open(url, expected),
  };
}
