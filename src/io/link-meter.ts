/**
 * What the engine has seen of its link, from its own Range reads: how long
 * an answer takes to start (a round trip, plus the server) and how fast its
 * body arrives. The station reader sizes its merge gap from these (a gap is
 * worth reading when its bytes arrive sooner than one more request would),
 * so the same code reads few ranges on a fast link and few bytes on a slow
 * one. Pure and free of node:* imports: it is bundled for the browser.
 */

/** One answer as the link delivered it. */
export interface Transfer {
  /** Body bytes received. */
  bytes: number;
  /** From sending the request to its response headers, ms. */
  waitMs: number;
  /** From the headers to the body's last byte, ms. */
  bodyMs: number;
  /**
   * The URL fetched and `performance.now()` when it was sent: with them the meter takes both
   * times from the runtime's Resource Timing entry of the request where there is one (see
   * {@link LinkMeter}).
   */
  url?: string;
  sentAt?: number;
}

/** A link as measured: null where nothing told yet. */
export interface LinkEstimate {
  /** The shortest wait for an answer seen, ms: a round trip and the server, without queueing. */
  latencyMs: number | null;
  /**
   * Body bytes per ms after the first {@link HEAD_START_BYTES}, less the time any body takes to be
   * handed over (the quickest body seen): the median over bodies large enough to time, or, when
   * more, the median over groups of bodies that arrived at the same time (they shared the link,
   * so each alone shows only its share). TCP starts slowly, so this errs low. The wait is not counted: the first
   * request of a session also waits for its connection (a TLS handshake is two round trips more),
   * and the station index, the body that times most first queries, is that request.
   */
  bytesPerMs: number | null;
}

/**
 * The first bytes of a body come with its headers (the same packets, or the same buffer of a
 * proxy): only what follows them is timed.
 */
export const HEAD_START_BYTES = 4 * 1024;
/**
 * Bodies smaller than this arrive too soon after their headers to time a link by. A station
 * index (17 KB for the demo's 130 stations) is timed: the first read of every station query.
 */
export const TIMED_BODY_BYTES = 12 * 1024;
/** An estimate is reused this long, ms, when nothing was recorded since ({@link LinkMeter.estimate}). */
const REUSE_MS = 20;
/** Transfers kept: the estimate follows a link that changes (a phone moving between cells). */
const KEPT = 48;
/** Shortest body time taken at its word, ms: timers and event loops are coarser than this. */
const MIN_BODY_MS = 0.5;
/**
 * A Resource Timing entry of the same URL and size that started between this long before the
 * recorded send and the body's end is that request's. (Node starts the clock of its first fetch
 * only once its HTTP client has loaded: 740 ms after the send, measured.)
 */
const MATCH_MS = 5;
/** How long a transfer's entry is looked for (it is added when the response completes). */
const LOOK_MS = 2_000;

interface Kept extends Transfer {
  /** True once the times are the Resource Timing entry's; false once no entry will come. */
  settled?: boolean;
  /** When the body began, on the `performance.now()` clock (the entry's `responseStart` once settled). */
  bodyAt?: number;
}

/**
 * Collects {@link Transfer}s of one dataset's reads and estimates the link from the recent ones.
 * Where the runtime keeps Resource Timing entries for fetches (browsers, their Workers, and
 * Node's fetch; the entry of a cross-origin file needs `Timing-Allow-Origin`), a transfer's times
 * are taken from its entry: the network stack's own, free of the delay with which a busy
 * page or Worker sees headers and body. Otherwise the times the reader took are kept.
 */
export class LinkMeter {
  private readonly transfers: Kept[] = [];
  private readonly used = new WeakSet<object>();
  /** The last estimate, with the count of records it saw and when it was made. */
  private last: { records: number; at: number; value: LinkEstimate } | undefined;
  private records = 0;

  /** Records one answer received whole. */
  record(t: Transfer): void {
    if (!(t.bytes >= 0 && t.waitMs >= 0 && t.bodyMs >= 0)) return;
    this.transfers.push({ ...t });
    this.records++;
    if (this.transfers.length > KEPT) this.transfers.shift();
  }

  /**
   * The transfers recorded, each with its times as measured (Resource Timing's where found), for
   * another meter to {@link record}: a page hands the timing of the reads it made for its engine
   * Worker over with their bytes.
   */
  measured(): Transfer[] {
    this.settle();
    return this.transfers.map(({ bytes, waitMs, bodyMs }) => ({ bytes, waitMs, bodyMs }));
  }

  /**
   * The current estimate. Asked again with no new record within {@link REUSE_MS}, the last one is
   * given: a poly-aggregate asks once per station file in one tick, and matching every transfer
   * with its Resource Timing entry each time was 22 ms of a cold 62-station query in Chromium.
   */
  estimate(): LinkEstimate {
    const now = globalThis.performance?.now() ?? Date.now();
    if (this.last && this.last.records === this.records && now - this.last.at < REUSE_MS) return this.last.value;
    const value = this.measure();
    this.last = { records: this.records, at: now, value };
    return value;
  }

  private measure(): LinkEstimate {
    if (this.transfers.length === 0) return { latencyMs: null, bytesPerMs: null };
    this.settle();
    const latencyMs = Math.min(...this.transfers.map((t) => t.waitMs));
    // What handing a body over costs whatever its size (a browser passes it from its network
    // process to the Worker in a few ms): the quickest body seen that came with its headers took
    // only that. Not the quickest of all: with only large bodies seen (a first query's catalog and
    // index) that one's own transfer would be taken away, and its rate read as near infinite
    // (26 MB/s on the bench's 4 Mbit/s link, so the coverage lines of a rural query were read
    // as one 179 KB range).
    const small = this.transfers.filter((t) => t.bytes <= HEAD_START_BYTES);
    const handOverMs = small.length === 0 ? 0 : Math.min(...small.map((t) => t.bodyMs));
    const rates = this.transfers
      .filter((t) => t.bytes >= TIMED_BODY_BYTES)
      .map((t) => (t.bytes - HEAD_START_BYTES) / Math.max(t.bodyMs - handOverMs, MIN_BODY_MS))
      .sort((a, b) => a - b);
    // The median: one body held back by a busy event loop (or arriving with its headers) would sway a mean or a max.
    const alone = rates.length === 0 ? null : rates[(rates.length - 1) >> 1]!;
    const shared = sharedRate(this.transfers, handOverMs);
    const bytesPerMs = alone === null ? shared : shared === null ? alone : Math.max(alone, shared);
    return { latencyMs, bytesPerMs };
  }

  /** Takes the times of transfers not settled yet from their Resource Timing entries. */
  private settle(): void {
    const perf = globalThis.performance as Performance | undefined;
    if (typeof perf?.getEntriesByName !== 'function') return;
    const now = perf.now();
    for (const t of this.transfers) {
      if (t.settled !== undefined || t.url === undefined || t.sentAt === undefined) continue;
      const entry = (perf.getEntriesByName(t.url, 'resource') as PerformanceResourceTiming[]).find(
        (e) =>
          !this.used.has(e) &&
          e.startTime > t.sentAt! - MATCH_MS &&
          e.startTime <= t.sentAt! + t.waitMs + t.bodyMs + MATCH_MS &&
          e.encodedBodySize === t.bytes &&
          e.responseStart > 0 &&
          e.responseEnd >= e.responseStart,
      );
      if (entry) {
        this.used.add(entry);
        t.waitMs = Math.max(0, entry.responseStart - entry.startTime);
        t.bodyMs = entry.responseEnd - entry.responseStart;
        t.bodyAt = entry.responseStart;
        t.settled = true;
      } else if (now - t.sentAt > LOOK_MS) t.settled = false;
    }
  }
}

/**
 * The median rate of groups of bodies whose arrivals overlapped, each group's bytes (after each
 * body's {@link HEAD_START_BYTES}) over the time from its first body's start to its last body's
 * end, less one hand-over. Six bodies sharing 20 Mbit/s each arrive at a sixth of it; together
 * they arrive at the link's rate. Groups with fewer than two bodies or
 * {@link TIMED_BODY_BYTES} in all are not timed (null when none is).
 */
function sharedRate(transfers: readonly Kept[], handOverMs: number): number | null {
  const spans = transfers
    .flatMap((t) => {
      const at = t.bodyAt ?? (t.sentAt === undefined ? undefined : t.sentAt + t.waitMs);
      return at === undefined ? [] : [{ from: at, to: at + t.bodyMs, bytes: t.bytes }];
    })
    .sort((a, b) => a.from - b.from);
  const rates: number[] = [];
  for (let i = 0; i < spans.length; ) {
    const first = spans[i]!;
    let to = first.to;
    let bytes = Math.max(0, first.bytes - HEAD_START_BYTES);
    let n = 1;
    let j = i + 1;
    for (; j < spans.length && spans[j]!.from < to; j++, n++) {
      to = Math.max(to, spans[j]!.to);
      bytes += Math.max(0, spans[j]!.bytes - HEAD_START_BYTES);
    }
    if (n >= 2 && bytes >= TIMED_BODY_BYTES) rates.push(bytes / Math.max(to - first.from - handOverMs, MIN_BODY_MS));
    i = j;
  }
  rates.sort((a, b) => a - b);
  return rates.length === 0 ? null : rates[(rates.length - 1) >> 1]!;
}
