// Shapes typed or pasted into the app: WKT as the API takes it, GeoJSON as farm tools export it.
import { describe, expect, it } from 'vitest';
import { MAX_PASTED_SHAPES, boundsOf, readShapeText } from '../../src/ui/shape-text.ts';
import { parseWkts } from '../../src/contract/wkt.ts';

const square = (x: number, y: number, d = 0.01) => [
  [x, y],
  [x + d, y],
  [x + d, y + d],
  [x, y + d],
  [x, y],
];

describe('typed and pasted shapes', () => {
  it('WKT, one per line or split by ";", gives the positions the API reader gives', () => {
    const wkt = 'POLYGON ((19.03 -34.15, 19.04 -34.15, 19.04 -34.14, 19.03 -34.15))';
    const got = readShapeText(`${wkt}\nPOINT (19.5 -33.5); POINT (20 -33)`);
    expect('geometries' in got).toBe(true);
    if (!('geometries' in got)) return;
    expect(got.geometries.map((g) => g.kind)).toEqual(['polygon', 'point', 'point']);
    const api = parseWkts(wkt, 'polygon', 1, 1)[0]!;
    expect(got.geometries[0]!.coordinates).toEqual(api.kind === 'polygon' ? api.polygons[0] : null);
    expect(got.geometries[2]!.coordinates).toEqual([20, -33]);
    expect(new Set(got.geometries.map((g) => g.id)).size).toBe(3);
    expect(boundsOf(got.geometries)).toEqual([19.03, -34.15, 20, -33]);
  });

  it('GeoJSON Feature, FeatureCollection, MultiPolygon (one field per part) and MultiPoint', () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { name: 'Block 7' },
          geometry: { type: 'Polygon', coordinates: [square(19, -34)] },
        },
        {
          type: 'Feature',
          properties: { NAME: 'Pinotage' },
          geometry: { type: 'MultiPolygon', coordinates: [[square(19.1, -34)], [square(19.2, -34, 0.02)]] },
        },
        { type: 'Feature', properties: {}, geometry: null },
        {
          type: 'Feature',
          properties: {},
          geometry: {
            type: 'MultiPoint',
            coordinates: [
              [18.9, -33.9, 120],
              [18.8, -33.8],
            ],
          },
        },
      ],
    };
    const got = readShapeText(JSON.stringify(fc, null, 2));
    if (!('geometries' in got)) throw new Error(got.error);
    expect(got.geometries.map((g) => g.kind)).toEqual(['polygon', 'polygon', 'polygon', 'point', 'point']);
    // Feature names come along (the list shows "G1 (Block 7)"); parts are numbered.
    expect(got.geometries.map((g) => g.name)).toEqual([
      'Block 7',
      'Pinotage, part 1',
      'Pinotage, part 2',
      undefined,
      undefined,
    ]);
    expect(got.geometries[2]!.coordinates).toEqual([square(19.2, -34, 0.02)]);
    // A third coordinate (elevation) is dropped, as the API's positions are lon, lat.
    expect(got.geometries[3]!.coordinates).toEqual([18.9, -33.9]);
  });

  it('splits a WKT MULTIPOINT into points, in either member form, as it does a GeoJSON MultiPoint', () => {
    for (const text of ['MULTIPOINT ((19 -34), (20 -33.5))', 'MULTIPOINT (19 -34, 20 -33.5)']) {
      const got = readShapeText(text);
      if (!('geometries' in got)) throw new Error(got.error);
      expect(got.geometries.map((g) => g.coordinates)).toEqual([
        [19, -34],
        [20, -33.5],
      ]);
    }
    expect(readShapeText('MULTIPOINT (19 -34, 200 -33)')).toEqual({
      error: expect.stringMatching(/^Shape 2 has longitude 200/),
    });
  });

  it('takes WKT wrapped over lines, as GIS tools and e-mails break it', () => {
    const got = readShapeText(
      'POLYGON ((19.03 -34.15,\n  19.04 -34.15, 19.04 -34.14,\n  19.03 -34.15))\nPOINT (19.5\n -33.5)',
    );
    if (!('geometries' in got)) throw new Error(got.error);
    expect(got.geometries.map((g) => g.kind)).toEqual(['polygon', 'point']);
    expect(got.geometries[1]!.coordinates).toEqual([19.5, -33.5]);
  });

  it('counts each part of a multi-polygon, and refuses more vertices than a query takes, before anything is added', () => {
    const parts = Array.from(
      { length: 60 },
      (_, i) => `((${19 + i / 10} -34, ${19.01 + i / 10} -34, ${19.01 + i / 10} -33.99, ${19 + i / 10} -34))`,
    );
    expect(readShapeText(`MULTIPOLYGON (${parts.join(', ')})`)).toEqual({
      error: expect.stringMatching(/^That is 60 shapes \(each part of a multi-polygon counts\); add at most 50/),
    });
    // 30 fields of 1,000 vertices: over the 20,000 a query takes (and no stack overflow working out the bounds).
    const ring = (x: number) => [
      ...Array.from({ length: 999 }, (_, k) => [
        x + 0.01 * Math.cos((2 * Math.PI * k) / 999),
        -34 + 0.01 * Math.sin((2 * Math.PI * k) / 999),
      ]),
      [x + 0.01, -34],
    ];
    const fc = {
      type: 'FeatureCollection',
      features: Array.from({ length: 30 }, (_, i) => ({
        type: 'Feature',
        properties: {},
        geometry: { type: 'Polygon', coordinates: [ring(19 + i / 10)] },
      })),
    };
    expect(readShapeText(JSON.stringify(fc))).toEqual({
      error: expect.stringMatching(/^These shapes have 30000 vertices; a query takes at most 20000/),
    });
    const big = Array.from({ length: 50 }, (_, i) => ({
      id: String(i),
      kind: 'polygon' as const,
      coordinates: [ring(19 + i / 100).map(([x, y]) => [x!, y!] as [number, number])],
    }));
    expect(boundsOf(big)![0]).toBeCloseTo(18.99, 6);
  });

  it('says what is wrong, naming the shape, and adds nothing', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /^Type or paste a shape first/],
      ['POINT (1 2)\nPOLYGON ((19 -34, 19.1 -34, 19 -34))', /^Shape 2, outer ring has 3 positions/],
      ['POINT (200 -33)', /^Shape 1 has longitude 200 outside -180\.\.180/],
      ['LINESTRING (1 2, 3 4)', /^Shape 1 is a LINESTRING/],
      ['{"type":"LineString","coordinates":[[1,2],[3,4]]}', /lines cannot/],
      ['{"type":"Polygon","coordinates":[[[1,"a"]]]}', /a position is not a list of two numbers/],
      ['{"type":"Polygon", ', /not valid JSON/],
      ['{"type":"FeatureCollection","features":[]}', /holds no point or polygon/],
      [
        Array.from({ length: MAX_PASTED_SHAPES + 1 }, (_, i) => `POINT (19 -${30 + i / 100})`).join('\n'),
        /add at most 50/,
      ],
    ];
    for (const [text, want] of cases) {
      const got = readShapeText(text);
      expect('error' in got ? got.error : 'accepted').toMatch(want);
    }
  });
});
