/**
 * A mapping file is checked field by field before anything is read (src/builder/import/mapping.ts):
 * what it leaves to be checked (`CHECK`), a unit it cannot convert or that cannot become the type's,
 * a type the scale lacks, are refused by name; times are read by the format it states.
 */
import { describe, expect, it } from 'vitest';
import { splitFields } from '../../src/builder/import/csv-fields.ts';
import { parseMapping, timeParser } from '../../src/builder/import/mapping.ts';

const base = {
  scale: 'hourly',
  time: { column: 'When', format: 'dd/mm/yyyy hh:mm' },
  zone: 'UTC',
  station: { id: 'L1', lat: -33.9, lon: 18.9 },
  columns: { T: { type: 'temperature_mean', unit: '°F' } },
};
const parse = (m: object) => () => parseMapping(JSON.stringify({ ...base, ...m }), 'map.json');

describe('a mapping file', () => {
  it('is refused by name where it says CHECK, or says what cannot be', () => {
    expect(parse({ zone: 'CHECK: UTC or an offset such as +02:00' })).toThrow(/"zone" must say the clock/);
    expect(parse({ station: { id: 'CHECK', lat: 'CHECK', lon: 'CHECK' } })).toThrow(
      /"station.id" must name the station/,
    );
    expect(parse({ station: { id: 'L1', lat: 'CHECK', lon: 18 } })).toThrow(/"station" must say where the station is/);
    expect(parse({ columns: { T: { type: 'temperature_mean', unit: 'Rankine' } } })).toThrow(/"Rankine" is not a unit/);
    expect(parse({ columns: { T: { type: 'rain', unit: '°C' } } })).toThrow(/°C cannot become rain's unit, mm/);
    expect(parse({ columns: { T: { type: 'rain_sum' } } })).toThrow(/"rain_sum" is not a hourly data type/);
    expect(parse({ time: { column: 'When', format: 'dd/mm/yyyy' } })).toThrow(
      /has no hour \(hh\): hourly rows need one/,
    );
    expect(() => parseMapping('{"scale":', 'map.json')).toThrow(/map.json is not JSON/);
  });

  it('takes what it states, with defaults for the separator, decimal mark and missing markers', () => {
    const m = parseMapping(JSON.stringify(base), 'map.json');
    expect(m).toMatchObject({
      separator: ',',
      decimal: '.',
      missing: expect.arrayContaining(['', '-', 'NaN', '-999']),
    });
  });
});

describe('times by their stated format', () => {
  it('reads day-first, year-first and seconds; the first mm after hh is minutes', () => {
    expect(timeParser('dd/mm/yyyy hh:mm')('01/06/2024 14:10')).toEqual([2024, 6, 1, 14, 10, 0]);
    expect(timeParser('yyyy/mm/dd hh:mm:ss')('2024/06/01 07:05:30')).toEqual([2024, 6, 1, 7, 5, 30]);
    expect(timeParser('yyyy-mm-ddThh:mm')('2024-06-01T00:50')).toEqual([2024, 6, 1, 0, 50, 0]);
    expect(timeParser('yyyy-mm-dd')('2024-06-01')).toEqual([2024, 6, 1, 0, 0, 0]);
    expect(timeParser('dd/mm/yyyy hh:mm')('2024-06-01 14:10')).toBeNull();
  });
});

describe('delimited fields', () => {
  it('keep separators and doubled quotes inside quotes, and refuse quotes that do not close', () => {
    expect(splitFields('"CAPE TOWN, SF";"a ""b""";3', ';')).toEqual(['CAPE TOWN, SF', 'a "b"', '3']);
    expect(splitFields('a,,c')).toEqual(['a', '', 'c']);
    expect(splitFields('"open,b')).toBeNull();
    expect(splitFields('"x"y,b')).toBeNull();
  });
});

describe('a mapping written in YAML (a .yaml or .yml file)', () => {
  const yaml = `# Block 7 logger, exported by the network's portal
scale: hourly
separator: ";"
decimal: ","
missing: ["", "-", "NaN"]
time: { column: When, format: "dd/mm/yyyy hh:mm" }
zone: UTC
station: { id: "007", lat: -33.9, lon: 18.9 }
columns:
  "Air temp (°F)": { type: temperature_mean, unit: "°F" }
`;

  it('reads as the same mapping its JSON form is; ids stay text', () => {
    const m = parseMapping(yaml, 'logger.mapping.yaml');
    const j = parseMapping(
      JSON.stringify({
        scale: 'hourly',
        separator: ';',
        decimal: ',',
        missing: ['', '-', 'NaN'],
        time: { column: 'When', format: 'dd/mm/yyyy hh:mm' },
        zone: 'UTC',
        station: { id: '007', lat: -33.9, lon: 18.9 },
        columns: { 'Air temp (°F)': { type: 'temperature_mean', unit: '°F' } },
      }),
      'logger.mapping.json',
    );
    expect(m).toEqual(j);
  });

  it('keeps a station id written plain with leading zeros as text, as YAML would not', () => {
    const m = parseMapping(yaml.replace('id: "007"', 'id: 007'), 'logger.mapping.yaml');
    expect(m.station).toMatchObject({ id: '007' });
  });

  it('is refused by name when it is not YAML, or not a mapping, and checked as JSON is', () => {
    expect(() => parseMapping('scale: [hourly', 'm.yml')).toThrow(/m\.yml is not YAML/);
    expect(() => parseMapping('- a\n- b\n', 'm.yaml')).toThrow(/must be a YAML mapping/);
    expect(() => parseMapping(yaml.replace('zone: UTC', 'zone: CHECK'), 'm.yaml')).toThrow(/"zone" must say the clock/);
  });
});
