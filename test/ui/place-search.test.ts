// The find box: towns from the bundled gazetteer, coordinates typed in
// decimal degrees or degrees-minutes-seconds. Expected values are worked by
// hand (d + m/60 + s/3600).
import { describe, expect, it } from 'vitest';
import places from '../../src/ui/basemap/places.json' with { type: 'json' };
import { parseCoordinates, searchPlaces } from '../../src/ui/place-search.ts';
import type { Place } from '../../src/ui/basemap.ts';

const gazetteer = places as Place[];

describe('searchPlaces', () => {
  it('finds Stellenbosch in the bundled GeoNames extract', () => {
    const [first] = searchPlaces(gazetteer, 'stellen');
    expect(first).toMatchObject({ label: 'Stellenbosch', zoom: 12 });
    expect(first!.lon).toBeCloseTo(18.8668, 3);
    expect(first!.lat).toBeCloseTo(-33.9346, 3);
  });
  it('puts names that start with the query first, bigger towns first, ignoring accents', () => {
    const names = searchPlaces(gazetteer, 'paarl').map((f) => f.label);
    expect(names[0]).toBe('Paarl');
    expect(searchPlaces(gazetteer, 'x')).toEqual([]);
  });
  it('keeps only South Africa and its neighbours', () => {
    expect(new Set(gazetteer.map((p) => p[4]))).toEqual(new Set(['ZA', 'NA', 'BW', 'ZW', 'MZ', 'LS', 'SZ']));
    expect(gazetteer.length).toBeLessThan(1000);
  });
});

describe('parseCoordinates', () => {
  const dms = (d: number, m: number, s: number) => d + m / 60 + s / 3600;
  it.each([
    ['-33.9346, 18.8668', -33.9346, 18.8668],
    ['-33.9346 18.8668', -33.9346, 18.8668],
    ['33.9346S 18.8668E', -33.9346, 18.8668],
    ['18.8668E, 33.9346S', -33.9346, 18.8668],
    [`33°56'05"S 18°52'00"E`, -dms(33, 56, 5), dms(18, 52, 0)],
    ['33°56′05″S, 18°52′00″E', -dms(33, 56, 5), dms(18, 52, 0)],
    ['S 33 56 05 E 18 52 00', -dms(33, 56, 5), dms(18, 52, 0)],
    ['33 56.5 S 18 52.25 E', -(33 + 56.5 / 60), 18 + 52.25 / 60],
  ])('%s', (text, lat, lon) => {
    const f = parseCoordinates(text)!;
    expect(f).not.toBeNull();
    expect(f.lat).toBeCloseTo(lat, 9);
    expect(f.lon).toBeCloseTo(lon, 9);
  });
  it.each(['Stellenbosch', '-95, 18', '33 61 00 S 18 00 00 E', '1, 2, 3', ''])('rejects %s', (text) => {
    expect(parseCoordinates(text)).toBeNull();
  });
});
