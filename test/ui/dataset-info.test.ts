// The dates the app offers first: always inside what the dataset holds, so a first query is never empty.
import { describe, expect, it } from 'vitest';
import { defaultStationDates, placeWarning } from '../../src/ui/dataset-info.ts';
import type { IndexedStation } from '../../src/stations/station-index.ts';

const station = (scale: 'hourly' | 'daily' | 'monthly', first: string, last: string): IndexedStation => ({
  id: 'A',
  name: 'A',
  lat: -33,
  lon: 19,
  elevation: null,
  files: { [scale]: { path: 'x', bytes: 1, footer: 1, first, last, coverageAt: [0, 1] } },
});

describe('default station dates', () => {
  it('the latest full month the data hold (hourly: its first week)', () => {
    expect(defaultStationDates([station('daily', '2023-01-01', '2024-12-31')], 'daily')).toEqual({
      startDate: '2024-12-01',
      endDate: '2024-12-31',
    });
    expect(defaultStationDates([station('daily', '2023-01-01', '2024-12-20')], 'daily')).toEqual({
      startDate: '2024-11-01',
      endDate: '2024-11-30',
    });
    expect(defaultStationDates([station('hourly', '2023-01-01T00:00:00', '2024-12-31T23:00:00')], 'hourly')).toEqual({
      startDate: '2024-12-01T00:00:00',
      endDate: '2024-12-07T23:00:00',
    });
    expect(defaultStationDates([station('monthly', '2024-03-01', '2024-12-01')], 'monthly')).toEqual({
      startDate: '2024-03',
      endDate: '2024-12',
    });
  });

  it('three weeks of June only: those days, not an empty May', () => {
    expect(defaultStationDates([station('daily', '2024-06-01', '2024-06-21')], 'daily')).toEqual({
      startDate: '2024-06-01',
      endDate: '2024-06-21',
    });
    expect(defaultStationDates([station('hourly', '2024-06-03T00:00:00', '2024-06-21T23:00:00')], 'hourly')).toEqual({
      startDate: '2024-06-03T00:00:00',
      endDate: '2024-06-09T23:00:00',
    });
    expect(defaultStationDates([station('hourly', '2024-06-18T00:00:00', '2024-06-20T23:00:00')], 'hourly')).toEqual({
      startDate: '2024-06-18T00:00:00',
      endDate: '2024-06-20T23:00:00',
    });
    // Data from mid-May to mid-June: May is the last full month but starts before the data.
    expect(defaultStationDates([station('daily', '2024-05-10', '2024-06-15')], 'daily')).toEqual({
      startDate: '2024-05-10',
      endDate: '2024-05-31',
    });
  });

  it('nothing held: null', () => {
    expect(defaultStationDates([], 'daily')).toBeNull();
  });
});

describe('a point outside the dataset gets a warning', () => {
  const sa: [number, number, number, number] = [16.5, -34.8, 32.9, -22.2];
  it('inside the area (or within half a degree of it): none', () => {
    expect(placeWarning(18.86, -33.93, sa)).toBeNull();
    expect(placeWarning(16.2, -34.9, sa)).toBeNull();
  });
  it('a latitude typed first (POINT (-33.93 18.86), off Brazil) is named as swapped, with the WKT meant', () => {
    expect(placeWarning(-33.93, 18.86, sa)).toBe(
      "The point at 18.8600, -33.9300 (latitude, longitude) lies outside this dataset's area, but with its two numbers swapped it would lie inside: WKT is longitude first, so perhaps you meant POINT (18.86 -33.93).",
    );
  });
  it('a point far away that swapping does not fix says it lies outside, and where the area is', () => {
    expect(placeWarning(2.35, 48.85, sa)).toMatch(
      /^The point at 48\.8500, 2\.3500 \(latitude, longitude\) lies outside this dataset's area \(longitude 16\.5 to 32\.9, latitude -34\.8 to -22\.2\)\.$/,
    );
  });
});
