// Time scales and station data types are described once,
// in the contract (src/contract/time-scales.ts, src/contract/station-types.ts),
// and the OpenAPI document, the app's option lists and the CLI help read
// them. In a temporary copy of src/, one made-up time scale and one made-up
// station type are added by editing those two files alone; all three show
// them, and the unmodified copy shows neither (so this test can fail). A
// scale on a calendar of its own (pentads) is one calendar object in
// src/contract/calendars.ts and one scale entry: requests, keys, the app's
// lists, the OpenAPI document, the station SQL and layer files follow.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../..');
const SCALE = 'synoptic';
const TYPE = 'soil_moisture';

// What the copy prints: the OpenAPI document, `climate-query query --help`, and the form's option lists.
const SCRIPT = `
import { openApiDocument } from './src/engine/openapi.ts';
import { main } from './src/node/cli.ts';
import { aggregationOptions, stationTypeOptions, timeScaleOptions } from './src/ui/form-options.ts';
import { dateInputAttrs } from './src/ui/date-input.ts';
import { VALIDATORS } from './src/contract/validate.ts';

let help = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk) => ((help += String(chunk)), true));
await main(['query', '--help']);
process.stdout.write = write;
const scales = timeScaleOptions();
const request = (timeScale, dataTypes, startDate) => {
  try {
    VALIDATORS['nearest-station']({ wkts: 'POINT (19 -33)', dataTypes, options: { timeScale }, startDate, endDate: startDate });
    return 'valid';
  } catch (err) {
    return err.message;
  }
};
write(JSON.stringify({
  openapi: openApiDocument('0.0.0'),
  help,
  ui: {
    timeScales: scales,
    types: Object.fromEntries(scales.map((s) => [s.value, stationTypeOptions(s.value)])),
    aggregations: aggregationOptions(),
    dateInput: dateInputAttrs('${SCALE}'),
  },
  validator: request('${SCALE}', ['${TYPE}'], '2024-01-31T12:00:00'),
}));
`;

/** One entry more in the description of the time scales: hours, like hourly, under another name. */
const NEW_SCALE = `  ${SCALE}: {
    calendar: 'hour',
    name: '${SCALE}',
    words: '${SCALE} values',
    period: 'synoptic hour',
    format: 'yyyy-mm-ddThh:00:00',
    example: '2024-01-31T12:00:00',
    parse: /^(?<year>\\d{4})-(?<month>\\d{2})-(?<day>\\d{2})T(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})$/,
    pattern: '^\\\\d{4}-\\\\d{2}-\\\\d{2}T\\\\d{2}:00:00$',
    input: { placeholder: 'yyyy-mm-dd hh:00', pattern: '\\\\d{4}-\\\\d{2}-\\\\d{2}[ T]\\\\d{2}:\\\\d{2}(:\\\\d{2})?' },
    station: { derivedFrom: null, fileTime: 'yyyy-mm-dd hh:00:00', rowGroupSize: 4096, maxMissing: 0 },
    raster: false,
  },
`;

/** One entry more in the description of the station types: at hourly, daily (derived) and the new scale. */
const NEW_TYPE = `  ${TYPE}: { name: 'Soil moisture', unit: '% by volume', decimals: 1, bounds: [0, 100], at: { hourly: {}, daily: rule('mean', '${TYPE}'), ${SCALE}: {} } },
`;

interface Printed {
  openapi: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  help: string;
  ui: {
    timeScales: { value: string; label: string }[];
    types: Record<string, { value: string; label: string; title: string }[]>;
    aggregations: { value: string; label: string }[];
    dateInput: { placeholder: string };
  };
  validator: string;
}

let copy: string;

/** Runs the script in the copy and parses what it printed. */
async function print(): Promise<Printed> {
  const { stdout } = await promisify(execFile)(join(copy, 'node_modules/.bin/tsx'), ['describe-once.mts'], {
    cwd: copy,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Printed;
}

/** Replaces `anchor` in the copy's `file` with `text` + `anchor`; the anchor must be there once. */
function insertBefore(file: string, anchor: string, text: string): void {
  const path = join(copy, file);
  const source = readFileSync(path, 'utf8');
  expect(source.split(anchor).length, `${file} holds "${anchor.trim()}" once`).toBe(2);
  // A function, so "$" in the text is not a replacement pattern.
  writeFileSync(
    path,
    source.replace(anchor, () => `${text}${anchor}`),
  );
}

/** A calendar of its own: pentads (days 1–5, 6–10, …, 26 to the month's end), as calendars.ts describes one. */
const NEW_CALENDAR = `  pentad: {
    ordinalOf(p) {
      const d = dayOrdinal(p);
      if (typeof d !== 'number') return d;
      if ((p.day - 1) % 5 !== 0) return { why: 'is not the first day of a pentad' };
      return (p.year - 1970) * 72 + (p.month - 1) * 6 + (p.day - 1) / 5;
    },
    keyOf: (o) => \`\${monthKey(Math.floor(o / 6))}-\${pad((((o % 6) + 6) % 6) * 5 + 1)}\`,
    requestDateOf: (key) => key,
    ordinalOfKey: ofDateKey((ms) => monthOfMs(ms) * 6 + Math.min(5, Math.floor((new Date(ms).getUTCDate() - 1) / 5))),
    startMs: (o) => Date.UTC(1970, Math.floor(o / 6), (o % 6) * 5 + 1),
    ordinalOfMs: (ms) => monthOfMs(ms) * 6 + Math.min(5, Math.floor((new Date(ms).getUTCDate() - 1) / 5)),
    wraps: false,
    sql: {
      timeType: 'DATE',
      archiveTime: /^DATE$/,
      archiveTimeWords: 'DATE',
      keyFormat: '%Y-%m-%d',
      ordinal: '(year(time) - 1970) * 72 + (month(time) - 1) * 6 + least(5, (day(time) - 1) // 5)',
      offGrid: '(day(time) - 1) % 5 <> 0 OR day(time) > 26',
      derive: { period: 'make_date(year(time), month(time), least(5, (day(time) - 1) // 5) * 5 + 1)', full: 'CASE WHEN day(p) < 26 THEN 5 ELSE day(last_day(p)) - 25 END' },
    },
    fileGroup: (key) => key.slice(0, 4),
    input: {
      example: '2024-01-06',
      forms: 'yyyy-mm-dd on day 01, 06, 11, 16, 21 or 26',
      tokens: ['yyyy', 'mm', 'dd'],
      normalise: (t) => t,
      fromTokens: (g) => \`\${g.yyyy}-\${g.mm}-\${g.dd}\`,
    },
  },
`;

/** Its scale: station records derived from days, and raster layers. */
const PENTAD_SCALE = `  pentadal: {
    calendar: 'pentad',
    name: 'pentadal',
    words: 'pentadal values',
    period: 'pentad',
    format: 'yyyy-mm-dd (day 01, 06, …, 26)',
    example: '2024-01-06',
    parse: /^(?<year>\\d{4})-(?<month>\\d{2})-(?<day>\\d{2})$/,
    pattern: '^\\\\d{4}-\\\\d{2}-(01|06|11|16|21|26)$',
    input: { placeholder: 'yyyy-mm-dd', pattern: '\\\\d{4}-\\\\d{2}-\\\\d{2}' },
    station: { derivedFrom: 'daily', fileTime: 'yyyy-mm-dd', rowGroupSize: 2048, maxMissing: 0 },
    raster: true,
  },
`;

/** What the copy prints for the pentads: the app's lists, the validator, the keys and a built layer's file name. */
const PENTAD_SCRIPT = `
import { openApiDocument } from './src/engine/openapi.ts';
import { timeScaleOptions, stationTypeOptions } from './src/ui/form-options.ts';
import { VALIDATORS } from './src/contract/validate.ts';
import { parseRange } from './src/contract/periods.ts';
import { calendarSql } from './src/contract/calendars.ts';
import { rasterFileName } from './src/builder/raster-build.ts';
import { compileDatePattern } from './src/builder/raster-build-dates.ts';
const v = VALIDATORS['nearest-station']({ wkts: 'POINT (19 -33)', dataTypes: ['rain_sum'], options: { timeScale: 'pentadal' }, startDate: '2024-01-26', endDate: '2024-02-06' });
let refused = '';
try { VALIDATORS['nearest-station']({ wkts: 'POINT (19 -33)', dataTypes: ['rain_sum'], options: { timeScale: 'pentadal' }, startDate: '2024-01-07', endDate: '2024-02-06' }); } catch (e) { refused = e.message; }
process.stdout.write(JSON.stringify({
  scales: timeScaleOptions().map((o) => o.value),
  types: stationTypeOptions('pentadal').map((o) => o.label),
  keys: parseRange('pentadal', '2024-01-26', '2024-02-06').keys,
  validKeys: v.range.keys,
  refused,
  openapi: openApiDocument('0.0.0').components.schemas.NearestStationRequest.oneOf.some((s) => s.properties.options.properties.timeScale.const === 'pentadal'),
  sql: calendarSql('pentad').ordinal,
  file: rasterFileName('pentadal', '2024-02-06'),
  pattern: compileDatePattern('p_{yyyy}{mm}{dd}.tif', 'pentadal')('p_20240206.tif'),
}));
`;

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'describe-once-'));
  cpSync(join(repo, 'src'), join(copy, 'src'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(repo, f), join(copy, f));
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'), 'dir');
  writeFileSync(join(copy, 'describe-once.mts'), SCRIPT);
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('a time scale and a station type described once', () => {
  it('the unmodified copy shows neither the made-up scale nor the made-up type', async () => {
    const before = await print();
    for (const text of [JSON.stringify(before.openapi), before.help, JSON.stringify(before.ui)]) {
      expect(text).not.toContain(SCALE);
      expect(text).not.toContain(TYPE);
    }
    expect(before.ui.timeScales.map((o) => o.value)).toEqual(['hourly', 'daily', 'dekadal', 'monthly']);
    expect(before.validator).toContain('options.timeScale');
  });

  it('adding them to the two description files alone shows them in the OpenAPI document, the app and the CLI help', async () => {
    insertBefore('src/contract/time-scales.ts', '  annual: {\n', NEW_SCALE);
    insertBefore('src/contract/station-types.ts', '  et0: {', NEW_TYPE);
    const after = await print();

    // OpenAPI: a station request schema for the new scale, with its date pattern and the new type.
    const oneOf = after.openapi.components.schemas.NearestStationRequest.oneOf as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    const synoptic = oneOf.find((s) => s.properties.options.properties.timeScale.const === SCALE);
    expect(synoptic?.properties.startDate.pattern).toBe('^\\d{4}-\\d{2}-\\d{2}T\\d{2}:00:00$');
    expect(synoptic?.properties.startDate.examples).toEqual(['2024-01-31T12:00:00']);
    expect(synoptic?.properties.dataTypes.items.enum).toEqual([TYPE]);
    for (const scale of ['hourly', 'daily']) {
      const items = oneOf.find((s) => s.properties.options.properties.timeScale.const === scale)!.properties.dataTypes
        .items;
      const i = items.enum.indexOf(TYPE);
      expect(i, `${scale} lists ${TYPE}`).toBeGreaterThan(-1);
      expect(items['x-enum-descriptions'][i]).toBe('Soil moisture (% by volume, step 0.1)');
    }
    const monthly = oneOf.find((s) => s.properties.options.properties.timeScale.const === 'monthly')!;
    expect(monthly.properties.dataTypes.items.enum).not.toContain(TYPE);

    // The app: the scale in the time-scale list, the type in its scales' lists, the scale's date field.
    expect(after.ui.timeScales).toContainEqual({ value: SCALE, label: SCALE });
    for (const scale of ['hourly', 'daily', SCALE])
      expect(after.ui.types[scale]).toContainEqual({ value: TYPE, label: 'Soil moisture (% by volume)', title: TYPE });
    expect(after.ui.types.monthly!.map((o) => o.value)).not.toContain(TYPE);
    expect(after.ui.dateInput.placeholder).toBe('yyyy-mm-dd hh:00');

    // The CLI help: the scale with its date format and example, the type at its scales.
    expect(after.help).toMatch(
      new RegExp(
        `^ {2}${SCALE} +yyyy-mm-ddThh:00:00 +e\\.g\\. 2024-01-31T12:00:00 +${SCALE} values of station records$`,
        'm',
      ),
    );
    const typeLines = (scale: string) =>
      new RegExp(`^ {2}${scale}: +([^]*?)(?=\\n {2}\\w+:|\\n\\n)`, 'm').exec(
        after.help.slice(after.help.indexOf('Station data types')),
      )?.[1] ?? '';
    expect(typeLines('hourly')).toContain(TYPE);
    expect(typeLines('daily')).toContain(TYPE);
    expect(typeLines(SCALE)).toBe(TYPE);
    expect(typeLines('monthly')).not.toContain(TYPE);

    // And the validators take a request at the new scale for the new type.
    expect(after.validator).toBe('valid');
  });

  it('a scale on a calendar of its own is its calendar object and its scale entry: requests, keys, lists, SQL and layer files follow', async () => {
    insertBefore('src/contract/calendars.ts', '  month: {\n', NEW_CALENDAR);
    insertBefore('src/contract/time-scales.ts', '  monthly: {\n', PENTAD_SCALE);
    writeFileSync(join(copy, 'pentads.mts'), PENTAD_SCRIPT);
    const { stdout } = await promisify(execFile)(join(copy, 'node_modules/.bin/tsx'), ['pentads.mts'], { cwd: copy });
    const got = JSON.parse(stdout) as Record<string, unknown>;
    expect(got.scales).toContain('pentadal');
    // The station types made of days exist at the new scale, named for it.
    expect(got.types).toContain('Rainfall, pentadal total (mm)');
    expect(got.keys).toEqual(['2024-01-26', '2024-02-01', '2024-02-06']);
    expect(got.validKeys).toEqual(got.keys);
    expect(got.refused).toMatch(/startDate "2024-01-07" is not the first day of a pentad/);
    expect(got.openapi).toBe(true);
    expect(got.sql).toMatch(/\* 72/);
    expect(got.file).toBe('2024.tif');
    expect(got.pattern).toBe('2024-02-06');
  });
});
