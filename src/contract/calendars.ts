/**
 * The arithmetic of each calendar unit a time scale can have, described
 * once: a period's position (its ordinal), its response key, the period of
 * an instant, the SQL that buckets a time into it, how a layer groups its
 * periods into files and how inputs write its dates. The time scales
 * (time-scales.ts) name one of these; periods.ts, the station reader, the
 * builds and the app read them, so a new scale on a new calendar is one
 * entry here plus its line in time-scales.ts.
 *
 * All arithmetic is on calendar fields in UTC (station times are local
 * standard time written without a zone; SAST has no daylight saving).
 */

/** A date as a request writes it, split into its fields (absent fields are 0). */
export interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** SQL of a calendar for station tables (DuckDB), over a column named `time`. */
export interface CalendarSql {
  /** Column type of a station file's `time` at this calendar. */
  timeType: 'TIMESTAMP' | 'DATE';
  /** Archive column types accepted as that (DuckDB's names). */
  archiveTime: RegExp;
  /** Those types in words, for messages. */
  archiveTimeWords: string;
  /** strftime format of a period's key from its (first) time. */
  keyFormat: string;
  /** The period ordinal of `time`. */
  ordinal: string;
  /** True for a `time` that is not the first instant of a period. */
  offGrid: string;
  /**
   * Deriving this calendar's periods from the next finer scale's rows
   * (`time` the finer time, `p` the period, in an aggregate grouped by `p`):
   * the period of a finer time, and how many finer values a full period holds.
   */
  derive?: { period: string; full: string };
}

/** One calendar unit. */
export interface CalendarSpec {
  /**
   * The ordinal of a date's fields, or why they are not a date of this
   * calendar (words that follow the date: "has no day 31 in that month").
   * Years are checked by the caller.
   */
  ordinalOf(parts: DateParts): number | { why: string };
  /** The response key of the period at `ordinal`. */
  keyOf(ordinal: number): string;
  /** The request date (startDate/endDate form) of a response key: "2024-03" for the month "2024-03-01". */
  requestDateOf(key: string): string;
  /** The ordinal of a response key ({@link keyOf}'s inverse); NaN when it is not one. */
  ordinalOfKey(key: string): number;
  /** The first instant (epoch milliseconds) of the period at `ordinal`; NaN for months of any year. */
  startMs(ordinal: number): number;
  /** The period of an instant (epoch milliseconds, finite); floors, as keys truncate. */
  ordinalOfMs(ms: number): number;
  /** True when ranges wrap (months of any year: 11 → 02); such ordinals are not counted as a span. */
  wraps: boolean;
  /** Station-table SQL; absent for calendars stations have no records at. */
  sql?: CalendarSql;
  /** The file of a dated layer that holds the period `key`, without extension ('2024' for a year's days). */
  fileGroup(key: string): string;
  /** How an input's band description or a --dates item may write a date: an example, the forms, and the normaliser to the request form. */
  input: {
    example: string;
    forms: string;
    /** Tokens a --date-pattern holds, in order ({yyyy}, {mm}, {dd}, {d}). */
    tokens: readonly string[];
    /** A written form (yyyymmdd, yyyymm, …) turned into the request form; null when it is not one. */
    normalise(text: string): string | null;
    /** The request form of a file name's matched tokens. */
    fromTokens(g: Record<string, string>): string;
  };
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Days in month `m` (1–12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function monthOrdinal(p: DateParts): number | { why: string } {
  if (p.month < 1 || p.month > 12) return { why: 'has a month outside 01–12' };
  return (p.year - 1970) * 12 + (p.month - 1);
}

function dayOrdinal(p: DateParts): number | { why: string } {
  const m = monthOrdinal(p);
  if (typeof m !== 'number') return m;
  if (p.day < 1 || p.day > daysInMonth(p.year, p.month)) return { why: `has no day ${pad(p.day)} in that month` };
  return Date.UTC(p.year, p.month - 1, p.day) / DAY_MS;
}

/** The ordinal of a key that is an instant's text ("2024-01-31", "2024-01-31T13:00:00"), floored onto the calendar. */
const ofDateKey = (ordinalOfMs: (ms: number) => number) => (key: string) => {
  const ms = Date.parse(
    /^\d{4}-\d{2}-\d{2}$/.test(key)
      ? `${key}T00:00:00Z`
      : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(key)
        ? `${key}Z`
        : 'x',
  );
  return Number.isFinite(ms) ? ordinalOfMs(ms) : NaN;
};

const monthKey = (o: number) => `${pad(1970 + Math.floor(o / 12), 4)}-${pad((((o % 12) + 12) % 12) + 1)}`;
const monthOfMs = (ms: number) => {
  const d = new Date(ms);
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
};

/** A dekad's first day: 1, 11 or 21 (FAO/WMO: days 1–10, 11–20, 21 to the month's end). */
export const DEKAD_FIRST_DAYS = [1, 11, 21] as const;
const dekadOfDay = (day: number) => (day <= 10 ? 0 : day <= 20 ? 1 : 2);

/** The SQL of the first day of the dekad of `time` (a DATE). */
const DEKAD_START_SQL = `make_date(year(time), month(time), CASE WHEN day(time) <= 10 THEN 1 WHEN day(time) <= 20 THEN 11 ELSE 21 END)`;

/** A station table's `time` of a calendar of days or longer: a DATE. */
const DATE_COLUMN = { timeType: 'DATE', archiveTime: /^DATE$/, archiveTimeWords: 'DATE' } as const;

/** The dekad of an instant, counted from January 1970. */
const dekadOfMs = (ms: number) => monthOfMs(ms) * 3 + dekadOfDay(new Date(ms).getUTCDate());

/** Every calendar unit. */
export const CALENDARS = {
  hour: {
    ordinalOf(p) {
      const d = dayOrdinal(p);
      if (typeof d !== 'number') return d;
      if (p.hour > 23) return { why: 'has an hour outside 00–23' };
      if (p.minute !== 0 || p.second !== 0) return { why: 'must have minutes and seconds 00:00' };
      return d * 24 + p.hour;
    },
    keyOf: (o) => new Date(o * HOUR_MS).toISOString().slice(0, 19),
    requestDateOf: (key) => key,
    ordinalOfKey: ofDateKey((ms) => Math.floor(ms / HOUR_MS)),
    startMs: (o) => o * HOUR_MS,
    ordinalOfMs: (ms) => Math.floor(ms / HOUR_MS),
    wraps: false,
    sql: {
      timeType: 'TIMESTAMP',
      archiveTime: /^TIMESTAMP(_MS|_NS)?$/,
      archiveTimeWords: 'TIMESTAMP (no time zone)',
      keyFormat: '%Y-%m-%dT%H:%M:%S',
      ordinal: `CAST(epoch(CAST(time AS TIMESTAMP)) AS BIGINT) // 3600`,
      offGrid: `minute(time) <> 0 OR second(time) <> 0 OR microsecond(time) <> 0`,
    },
    fileGroup: (key) => key.slice(0, 4),
    input: {
      example: '2024-01-31T13:00:00',
      forms: 'yyyy-mm-ddThh:00:00',
      tokens: ['yyyy', 'mm', 'dd'],
      normalise: (t) => t,
      fromTokens: (g) => `${g.yyyy}-${g.mm}-${g.dd}T00:00:00`,
    },
  },
  day: {
    ordinalOf: dayOrdinal,
    keyOf: (o) => new Date(o * DAY_MS).toISOString().slice(0, 10),
    requestDateOf: (key) => key,
    ordinalOfKey: ofDateKey((ms) => Math.floor(ms / DAY_MS)),
    startMs: (o) => o * DAY_MS,
    ordinalOfMs: (ms) => Math.floor(ms / DAY_MS),
    wraps: false,
    sql: {
      ...DATE_COLUMN,
      keyFormat: '%Y-%m-%d',
      ordinal: `date_diff('day', DATE '1970-01-01', time)`,
      offGrid: 'false',
      // Days from hours: 24 a day.
      derive: { period: `CAST(time AS DATE)`, full: '24' },
    },
    // A file (or store) per year of days.
    fileGroup: (key) => key.slice(0, 4),
    input: {
      example: '2024-01-31',
      forms: 'yyyy-mm-dd or yyyymmdd',
      tokens: ['yyyy', 'mm', 'dd'],
      normalise: (t) => (/^\d{8}$/.test(t) ? `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6)}` : t),
      fromTokens: (g) => `${g.yyyy}-${g.mm}-${g.dd}`,
    },
  },
  dekad: {
    ordinalOf(p) {
      const d = dayOrdinal(p);
      if (typeof d !== 'number') return d;
      if (!(DEKAD_FIRST_DAYS as readonly number[]).includes(p.day)) {
        return { why: 'is not the first day of a dekad (day 01, 11 or 21)' };
      }
      return (p.year - 1970) * 36 + (p.month - 1) * 3 + dekadOfDay(p.day);
    },
    keyOf: (o) => `${monthKey(Math.floor(o / 3))}-${pad(DEKAD_FIRST_DAYS[((o % 3) + 3) % 3]!)}`,
    requestDateOf: (key) => key,
    ordinalOfKey: ofDateKey(dekadOfMs),
    startMs: (o) => Date.UTC(1970, Math.floor(o / 3), DEKAD_FIRST_DAYS[((o % 3) + 3) % 3]!),
    ordinalOfMs: dekadOfMs,
    wraps: false,
    sql: {
      ...DATE_COLUMN,
      keyFormat: '%Y-%m-%d',
      ordinal: `(year(time) - 1970) * 36 + (month(time) - 1) * 3 + CASE WHEN day(time) <= 10 THEN 0 WHEN day(time) <= 20 THEN 1 ELSE 2 END`,
      offGrid: `day(time) NOT IN (1, 11, 21)`,
      // Dekads from days: 10 days, the third 8 to 11 (the rest of the month).
      derive: { period: DEKAD_START_SQL, full: `CASE WHEN day(p) < 21 THEN 10 ELSE day(last_day(p)) - 20 END` },
    },
    // A file (or store) per year: 36 dekads.
    fileGroup: (key) => key.slice(0, 4),
    input: {
      example: '2024-01-11',
      forms: 'yyyy-mm-dd or yyyymmdd on day 01, 11 or 21, or yyyy-mm-d / yyyy.mm.d with d the dekad 1–3',
      tokens: ['yyyy', 'mm', 'd'],
      normalise(t) {
        const n = /^(\d{4})[-.]?(\d{2})[-.]?([123])$/.exec(t);
        if (n) return `${n[1]}-${n[2]}-${pad(DEKAD_FIRST_DAYS[Number(n[3]) - 1]!)}`;
        return /^\d{8}$/.test(t) ? `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6)}` : t;
      },
      fromTokens: (g) => `${g.yyyy}-${g.mm}-${pad(DEKAD_FIRST_DAYS[Number(g.d) - 1] ?? 0)}`,
    },
  },
  month: {
    ordinalOf: monthOrdinal,
    keyOf: (o) => `${monthKey(o)}-01`,
    requestDateOf: (key) => key.slice(0, 7),
    // "2024-03" (a request date, as tables and people write months) reads as its key "2024-03-01".
    ordinalOfKey: (key) => ofDateKey(monthOfMs)(/^\d{4}-\d{2}$/.test(key) ? `${key}-01` : key),
    startMs: (o) => Date.UTC(1970, o, 1),
    ordinalOfMs: monthOfMs,
    wraps: false,
    sql: {
      ...DATE_COLUMN,
      keyFormat: '%Y-%m-01',
      ordinal: `(year(time) - 1970) * 12 + month(time) - 1`,
      offGrid: `day(time) <> 1`,
      // Months from days: every day of the month.
      derive: { period: `CAST(date_trunc('month', time) AS DATE)`, full: `day(last_day(p))` },
    },
    fileGroup: (key) => key.slice(0, 4),
    input: {
      example: '2024-01',
      forms: 'yyyy-mm, yyyymm or yyyy-mm-01',
      tokens: ['yyyy', 'mm'],
      normalise: (t) =>
        /^\d{6}$/.test(t) ? `${t.slice(0, 4)}-${t.slice(4)}` : /^\d{4}-\d{2}-01$/.test(t) ? t.slice(0, 7) : t,
      fromTokens: (g) => `${g.yyyy}-${g.mm}`,
    },
  },
  year: {
    ordinalOf: (p) => p.year,
    keyOf: (o) => String(o),
    requestDateOf: (key) => key,
    ordinalOfKey: (key) => (/^\d{4}$/.test(key) ? Number(key) : NaN),
    startMs: (o) => Date.UTC(o, 0, 1),
    ordinalOfMs: (ms) => new Date(ms).getUTCFullYear(),
    wraps: false,
    // One file of all the years.
    fileGroup: () => 'years',
    input: {
      example: '2024',
      forms: 'yyyy',
      tokens: ['yyyy'],
      normalise: (t) => t,
      fromTokens: (g) => g.yyyy!,
    },
  },
  month_of_year: {
    ordinalOf: (p) => (p.month < 1 || p.month > 12 ? { why: 'is not a month 01–12' } : p.month),
    // ISO 8601's "--MM" (a month of any year). Plain "10".."12" would be
    // integer-like object keys, which JavaScript always orders first.
    keyOf: (o) => `--${pad(o)}`,
    requestDateOf: (key) => key.replace(/^--/, ''),
    ordinalOfKey: (key) => (/^--\d{2}$/.test(key) ? Number(key.slice(2)) : NaN),
    startMs: () => NaN,
    ordinalOfMs: (ms) => new Date(ms).getUTCMonth() + 1,
    wraps: true,
    // One file of the twelve months.
    fileGroup: () => 'months',
    input: {
      example: '01',
      forms: 'mm or 1–12',
      tokens: ['mm'],
      normalise: (t) => (/^\d$/.test(t) ? `0${t}` : t),
      fromTokens: (g) => g.mm!,
    },
  },
} as const satisfies Record<string, CalendarSpec>;

/** A calendar unit's name. */
export type Calendar = keyof typeof CALENDARS;

/** The SQL of a calendar stations have records at; throws for one without. */
export function calendarSql(calendar: Calendar): CalendarSql {
  const sql = (CALENDARS[calendar] as CalendarSpec).sql;
  if (!sql) throw new Error(`Calendar "${calendar}" has no station SQL.`);
  return sql;
}
