/**
 * Answer equality between the engine and a baseline: walks two answers of
 * the contract's shapes leaf by leaf and says how many values agree, how
 * many do not and by how much.
 */

/** The outcome of comparing two answers. */
export interface Agreement {
  /** Values compared (leaves of the reference answer). */
  values: number;
  /** Values that agree within the tolerance. */
  equal: number;
  /** Where the reference has a number and the other answer has null (or nothing). */
  missingInOther: number;
  /** Where the reference has null and the other a number. */
  extraInOther: number;
  /** Largest |a − b| over values both have. */
  maxAbsDiff: number;
  /** Mean |a − b| over values both have. */
  meanAbsDiff: number;
  /** Tolerance used for numbers. */
  tolerance: number;
  /** A few disagreements, for the report. */
  examples: string[];
  /** The same per top-level key (per WKT for raster answers). */
  byKey: Record<
    string,
    {
      values: number;
      equal: number;
      missingInOther: number;
      extraInOther: number;
      maxAbsDiff: number;
      meanAbsDiff: number;
    }
  >;
}

/**
 * Compares `other` against `reference`. Numbers agree when
 * |a − b| ≤ `tolerance` (absolute), or within 1e-12 relative; everything
 * else (keys, null, booleans, strings) must be identical.
 */
export function compareAnswers(reference: unknown, other: unknown, tolerance: number): Agreement {
  const out: Agreement = {
    values: 0,
    equal: 0,
    missingInOther: 0,
    extraInOther: 0,
    maxAbsDiff: 0,
    meanAbsDiff: 0,
    tolerance,
    examples: [],
    byKey: {},
  };
  let sumDiff = 0;
  let both = 0;
  const sums = new Map<string, { sum: number; both: number }>();
  const bump = (path: string, f: (k: Agreement['byKey'][string]) => void, diff?: number) => {
    const key = path.split('/')[1] ?? '';
    const k = (out.byKey[key] ??= {
      values: 0,
      equal: 0,
      missingInOther: 0,
      extraInOther: 0,
      maxAbsDiff: 0,
      meanAbsDiff: 0,
    });
    f(k);
    if (diff !== undefined) {
      const t = sums.get(key) ?? { sum: 0, both: 0 };
      t.sum += diff;
      t.both++;
      sums.set(key, t);
      k.maxAbsDiff = Math.max(k.maxAbsDiff, diff);
    }
  };
  const note = (path: string, a: unknown, b: unknown) => {
    if (out.examples.length < 5) out.examples.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  };
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (a !== null && typeof a === 'object') {
      const keys = new Set([...Object.keys(a), ...(b !== null && typeof b === 'object' ? Object.keys(b) : [])]);
      for (const k of keys) {
        walk(
          (a as Record<string, unknown>)[k],
          b !== null && typeof b === 'object' ? (b as Record<string, unknown>)[k] : undefined,
          `${path}/${k}`,
        );
      }
      return;
    }
    out.values++;
    bump(path, (k) => k.values++);
    if (typeof a === 'number' && typeof b === 'number') {
      const d = Math.abs(a - b);
      both++;
      sumDiff += d;
      out.maxAbsDiff = Math.max(out.maxAbsDiff, d);
      const same = d <= tolerance || d <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
      bump(path, (k) => (k.equal += same ? 1 : 0), d);
      if (same) out.equal++;
      else note(path, a, b);
      return;
    }
    if (typeof a === 'number' && (b === null || b === undefined)) {
      out.missingInOther++;
      bump(path, (k) => k.missingInOther++);
      note(path, a, b);
      return;
    }
    if ((a === null || a === undefined) && typeof b === 'number') {
      out.extraInOther++;
      bump(path, (k) => k.extraInOther++);
      note(path, a, b);
      return;
    }
    if (a === b || (a == null && b == null)) {
      out.equal++;
      bump(path, (k) => k.equal++);
    } else note(path, a, b);
  };
  walk(reference, other, '');
  out.meanAbsDiff = both ? sumDiff / both : 0;
  for (const [key, t] of sums) out.byKey[key]!.meanAbsDiff = t.sum / t.both;
  return out;
}
