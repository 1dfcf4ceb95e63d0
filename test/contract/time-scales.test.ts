// The one description of time scales and station data types
// (src/contract/time-scales.ts, src/contract/station-types.ts) holds
// together: each scale's example is a valid date that its OpenAPI pattern
// and the app's date field accept, derivations run from finer to coarser
// scales, every derive rule reads a type of the scale it derives from, and
// bounds are ordered. A scale or type added there is checked here too.
import { describe, expect, it } from 'vitest';
import { parseDate, periodKey } from '../../src/contract/periods.ts';
import { STATION_TYPE_TABLE } from '../../src/contract/station-types.ts';
import {
  STATION_TIME_SCALES,
  TIME_SCALES,
  TIME_SCALE_NAMES,
  stationScaleSpec,
  type StationTimeScale,
} from '../../src/contract/time-scales.ts';
import { STATION_TYPES } from '../../src/contract/station-data-types.ts';
import { dateInputAttrs, fromDateInput, toDateInput } from '../../src/ui/date-input.ts';

describe('the time scales', () => {
  it.each(TIME_SCALE_NAMES)(
    '%s: its example is a valid date, matches its pattern, and goes through the date field unchanged',
    (scale) => {
      const t = TIME_SCALES[scale];
      const ordinal = parseDate(scale, t.example, 'startDate');
      // A period key is a date of its scale again (a month's key carries day 01, which its requests leave out).
      const key = periodKey(scale, ordinal);
      expect(parseDate(scale, t.calendar === 'month' ? key.slice(0, 7) : key, 'startDate')).toBe(ordinal);
      expect(new RegExp(t.pattern).test(t.example)).toBe(true);
      const typed = toDateInput(scale, t.example);
      // The browser anchors an HTML pattern at both ends.
      expect(new RegExp(`^(?:${dateInputAttrs(scale).pattern})$`).test(typed)).toBe(true);
      expect(fromDateInput(scale, typed)).toBe(t.example);
      expect(t.format.length).toBeGreaterThan(0);
    },
  );

  it('station scales are derived only from a finer station scale', () => {
    expect(STATION_TIME_SCALES.length).toBeGreaterThan(0);
    STATION_TIME_SCALES.forEach((scale, i) => {
      const from = stationScaleSpec(scale).derivedFrom;
      if (from !== null) expect(STATION_TIME_SCALES.slice(0, i)).toContain(from);
      expect(stationScaleSpec(scale).rowGroupSize % 2048).toBe(0);
    });
  });
});

describe('the station data types', () => {
  it.each(Object.keys(STATION_TYPE_TABLE))(
    '%s: exists at a station scale, has ordered bounds, and derives only from types of the finer scale',
    (type) => {
      const spec = STATION_TYPE_TABLE[type]!;
      const scales = Object.keys(spec.at) as StationTimeScale[];
      expect(scales.length).toBeGreaterThan(0);
      for (const scale of scales) {
        expect(STATION_TIME_SCALES).toContain(scale);
        expect(STATION_TYPES[scale]).toContain(type);
        const at = spec.at[scale]!;
        if (at.from) {
          const finer = stationScaleSpec(scale).derivedFrom;
          expect(finer, `${type} at ${scale} has a rule but ${scale} is derived from no scale`).not.toBeNull();
          expect(STATION_TYPES[finer as StationTimeScale]).toContain(at.from.src);
        }
      }
      const [lo, hi] = spec.bounds;
      if (lo !== null && hi !== null) expect(lo).toBeLessThan(hi);
      expect(spec.name).not.toMatch(/_/);
      expect(Number.isInteger(spec.decimals)).toBe(true);
    },
  );
});
