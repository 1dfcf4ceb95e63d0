/**
 * Date fields as plain text in the contract's own order, yyyy-mm-dd,
 * whatever the browser's locale: a native <input type="date"> shows
 * MM/DD/YYYY in en-US Chromium, which a South African reads as D/M. The
 * pattern gives the browser's own hint; the contract's validators give the
 * message next to the field. Hourly dates are typed "yyyy-mm-dd hh:mm".
 * Each scale's hint and pattern are in the contract's description of the
 * scales (contract/time-scales.ts).
 */
import { TIME_SCALES, timeScaleSpec } from '../contract/time-scales.ts';

/** Attributes of a date field for a time scale. */
export interface DateInputAttrs {
  type: 'text';
  placeholder: string;
  pattern: string;
  inputMode: 'numeric';
}

/** The attributes of the From and To fields at `scale` (an unknown scale gets daily's). */
export function dateInputAttrs(scale: string): DateInputAttrs {
  const { placeholder, pattern } = (timeScaleSpec(scale) ?? TIME_SCALES.daily).input;
  return { type: 'text', placeholder, pattern, inputMode: 'numeric' };
}

/** True when `scale`'s dates carry an hour, typed "yyyy-mm-dd hh:mm" rather than with the request's T. */
function typedWithHour(scale: string | null): boolean {
  return scale !== null && timeScaleSpec(scale)?.calendar === 'hour';
}

/** What the field shows for a request date: hourly "2024-06-01T00:00:00" as "2024-06-01 00:00". */
export function toDateInput(scale: string | null, value: string): string {
  const m = typedWithHour(scale) ? /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value) : null;
  return m ? `${m[1]} ${m[2]}` : value;
}

/** The request date for what was typed: hourly "2024-06-01 00:00" (or with T) becomes "2024-06-01T00:00:00"; spaces trimmed. */
export function fromDateInput(scale: string | null, value: string): string {
  const v = value.trim();
  const m = typedWithHour(scale) ? /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?$/.exec(v) : null;
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}` : v;
}
