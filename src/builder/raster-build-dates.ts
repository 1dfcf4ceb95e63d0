/**
 * The dates of a raster build's input bands, from what the user stated:
 * explicit dates (`--dates`, or per input), a file-name pattern
 * (`--date-pattern 'tmin_{yyyy}{mm}{dd}.tif'`, CHIRPS's `chirps-v2.0.{yyyy}.{mm}.{d}.tif`), or band descriptions that
 * are dates of the layer's time scale. Nothing is guessed: a file whose
 * dates none of these give is refused with what to pass (a
 * guess from file names once labelled `cfsv2_…_2016.tif` as month `--02`).
 */
import { BuildError } from './build-error.ts';
import { parseDate, periodKey } from '../contract/periods.ts';
import type { RasterTimeScale } from '../contract/raster-layers.ts';
import { CALENDARS, type CalendarSpec } from '../contract/calendars.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';

/** How the dates of a build are stated; at most one of these. */
export interface DateSource {
  /** One date per band over all inputs, in input order then band order. */
  dates?: string[];
  /** A file-name pattern with {yyyy}, {mm}, {dd} and `*` (any text); single-band inputs. */
  datePattern?: string;
}

/** How inputs may write the dates of a scale: its calendar's forms and file-name tokens (contract/calendars.ts). */
function inputDates(scale: RasterTimeScale): CalendarSpec['input'] {
  return CALENDARS[TIME_SCALES[scale].calendar].input;
}

/** The date forms a time scale accepts in inputs (also yyyymmdd, yyyymm, yyyy-mm-01 and 1..12). */
export function dateFormsOf(scale: RasterTimeScale): string {
  return inputDates(scale).forms;
}

/** Accepts the date forms people write for a time scale and returns the response key. */
export function normalisePeriod(scale: RasterTimeScale, text: string, where: string): string {
  const input = inputDates(scale);
  const t = input.normalise(text.trim());
  try {
    return periodKey(scale, parseDate(scale, t, 'inputs'));
  } catch {
    throw new BuildError(
      'invalid_option',
      `${where}: "${text}" is not a ${scale} date (${dateFormsOf(scale)}, e.g. ${input.example}).`,
      { option: 'dates' },
    );
  }
}

/** A compiled file-name pattern: the date of a matching name, or null. */
export type DatePattern = (fileName: string) => string | null;

/**
 * Compiles `pattern` for `scale`: {yyyy} is four digits, {mm} and {dd} two, {d} a dekad 1–3,
 * `*` any text, everything else literal; the whole file name must match.
 * Throws when the pattern lacks a token the scale needs or has one it does not.
 */
export function compileDatePattern(pattern: string, scale: RasterTimeScale): DatePattern {
  const input = inputDates(scale);
  const need = input.tokens;
  const found = [...pattern.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
  const bad = (why: string) =>
    new BuildError(
      'invalid_option',
      `--date-pattern "${pattern}" ${why}; a ${scale} layer's pattern holds ${need.map((t) => `{${t}}`).join(', ')} (and * for any text), e.g. 'tmin_${need.map((t) => `{${t}}`).join('')}.tif'.`,
      {
        option: 'datePattern',
      },
    );
  for (const t of found) {
    if (!need.includes(t)) throw bad(`has {${t}}, which a ${scale} date does not have`);
    if (found.filter((x) => x === t).length > 1) throw bad(`has {${t}} twice`);
  }
  for (const t of need) if (!found.includes(t)) throw bad(`lacks {${t}}`);
  const width: Record<string, string> = { yyyy: '\\d{4}', mm: '\\d{2}', dd: '\\d{2}', d: '[123]' };
  const source = pattern
    .split(/(\{[^}]*\}|\*)/)
    .map((part) => {
      if (part === '*') return '.*?';
      const token = /^\{(.*)\}$/.exec(part)?.[1];
      if (token) return `(?<${token}>${width[token]})`;
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  const re = new RegExp(`^${source}$`);
  return (fileName) => {
    const g = re.exec(fileName)?.groups;
    return g ? input.fromTokens(g) : null;
  };
}

/** One input as the dating step sees it. */
export interface DatedInput {
  path: string;
  /** File name without folders. */
  name: string;
  bands: number;
  /** Band descriptions ('' where none). */
  descriptions: string[];
  /** Dates given for this input alone (programmatic builds). */
  periods?: string[];
}

/**
 * The period key of every band of every input, in input order. `scale`
 * null (undated): one single band in all, key ''. Otherwise, in order of
 * precedence: per-input periods, `source.dates`, `source.datePattern`,
 * then band descriptions when every band of the input has one.
 */
export function datesOfInputs(
  scale: RasterTimeScale | null,
  inputs: readonly DatedInput[],
  source: DateSource,
): string[][] {
  const dates = statedDates(scale, inputs, source);
  if (scale !== null) for (const [n, i] of inputs.entries()) checkAgainstDescriptions(scale, i, dates[n]!);
  return dates;
}

/**
 * Stated dates must not contradict dates the file itself carries: a band
 * whose description is a date of this time scale must get that date.
 * Which of the two is right cannot be known, so neither is taken.
 */
function checkAgainstDescriptions(scale: RasterTimeScale, input: DatedInput, dates: readonly string[]): void {
  input.descriptions.forEach((d, b) => {
    let own: string;
    try {
      own = normalisePeriod(scale, d, '');
    } catch {
      return; // Not a date: a name such as "precipitation" says nothing about the date.
    }
    if (own !== dates[b]) {
      throw new BuildError(
        'invalid_option',
        `${input.name} band ${b + 1} is dated ${own} by its band description, but the dates passed make it ${dates[b]}; fix the --dates/--date-pattern or the file's band descriptions.`,
        { option: 'dates' },
      );
    }
  });
}

function statedDates(scale: RasterTimeScale | null, inputs: readonly DatedInput[], source: DateSource): string[][] {
  const total = inputs.reduce((n, i) => n + i.bands, 0);
  if (scale === null) {
    if (source.dates || source.datePattern || inputs.some((i) => i.periods)) {
      throw new BuildError(
        'invalid_option',
        'An undated layer (--time-scale none) takes no dates; leave out --dates and --date-pattern, or pass the --time-scale the dates belong to.',
        { option: 'dates' },
      );
    }
    if (inputs.length !== 1 || total !== 1) {
      throw new BuildError(
        'invalid_option',
        `An undated layer (--time-scale none) is one single-band file; got ${inputs.length} file(s) with ${total} band(s). Pass the --time-scale and dates if the bands are dates.`,
        {
          option: 'inputs',
        },
      );
    }
    return [['']];
  }
  if (source.dates && source.datePattern) {
    throw new BuildError('invalid_option', 'Pass either --dates or --date-pattern, not both.', { option: 'dates' });
  }
  if (source.dates) {
    if (source.dates.length !== total) {
      const shape = inputs.map((i) => `${i.name}: ${i.bands}`).join(', ');
      throw new BuildError(
        'invalid_option',
        `--dates lists ${source.dates.length} date(s) but the inputs have ${total} band(s) (${shape}); give one date per band, in file order.`,
        { option: 'dates' },
      );
    }
    let k = 0;
    return inputs.map((i) =>
      Array.from({ length: i.bands }, (_, b) =>
        normalisePeriod(scale, source.dates![k++]!, `--dates item ${k} (${i.name} band ${b + 1})`),
      ),
    );
  }
  const pattern = source.datePattern ? compileDatePattern(source.datePattern, scale) : null;
  return inputs.map((i) => {
    if (i.periods) {
      if (i.periods.length !== i.bands)
        throw new BuildError(
          'invalid_option',
          `${i.path} has ${i.bands} bands but ${i.periods.length} periods were given.`,
          { option: 'inputs' },
        );
      return i.periods.map((p, b) => normalisePeriod(scale, p, `${i.path} band ${b + 1}`));
    }
    if (pattern) {
      if (i.bands !== 1) {
        throw new BuildError(
          'invalid_option',
          `${i.name} has ${i.bands} bands; --date-pattern dates single-band files. Pass --dates with one date per band instead.`,
          { option: 'datePattern' },
        );
      }
      const date = pattern(i.name);
      if (date === null)
        throw new BuildError(
          'invalid_option',
          `${i.name} does not match --date-pattern "${source.datePattern}"; rename the file or pass --dates.`,
          { option: 'datePattern' },
        );
      return [normalisePeriod(scale, date, `${i.name} (by --date-pattern)`)];
    }
    if (i.descriptions.every((d) => d.trim() !== '')) {
      try {
        return i.descriptions.map((d, b) => normalisePeriod(scale, d, `${i.path} band ${b + 1} description`));
      } catch (err) {
        // Band descriptions are often names ("precipitation"), not dates: say how to state them instead.
        throw new BuildError(
          'invalid_option',
          `${(err as Error).message} State the dates instead: --dates D1,D2,… (one per band) or --date-pattern.`,
          { option: 'dates', cause: err },
        );
      }
    }
    throw new BuildError(
      'invalid_option',
      `Cannot tell the dates of ${i.path} (${i.bands} band(s), no band descriptions): pass --dates D1,D2,… (one per band, ${dateFormsOf(scale)}) or --date-pattern with ${inputDates(
        scale,
      )
        .tokens.map((t) => `{${t}}`)
        .join(', ')} where the file name holds the date (e.g. 'tmin_${inputDates(scale)
        .tokens.map((t) => `{${t}}`)
        .join('')}.tif'), or --time-scale none for an undated layer.`,
      { option: 'dates' },
    );
  });
}
