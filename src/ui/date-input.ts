/**
 * Date fields as plain text in the contract's own order, yyyy-mm-dd,
 * whatever the browser's locale: a native <input type="date"> shows
 * MM/DD/YYYY in en-US Chromium, which a South African reads as D/M. The
 * pattern gives the browser's own hint; the contract's validators give the
 * message next to the field. Hourly dates are typed "yyyy-mm-dd hh:mm".
 */

/** Attributes of a date field for a time scale. */
export interface DateInputAttrs {
  type: 'text';
  placeholder: string;
  pattern: string;
  inputMode: 'numeric';
}

const FORMATS: Record<string, [placeholder: string, pattern: string]> = {
  hourly: ['yyyy-mm-dd hh:mm', '\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(:\\d{2})?'],
  daily: ['yyyy-mm-dd', '\\d{4}-\\d{2}-\\d{2}'],
  monthly: ['yyyy-mm', '\\d{4}-\\d{2}'],
  annual: ['yyyy', '\\d{4}'],
  calendar_month: ['mm (01–12)', '(--)?\\d{2}'],
};

/** The attributes of the From and To fields at `scale`. */
export function dateInputAttrs(scale: string): DateInputAttrs {
  const [placeholder, pattern] = FORMATS[scale] ?? FORMATS.daily!;
  return { type: 'text', placeholder, pattern, inputMode: 'numeric' };
}

/** What the field shows for a request date: hourly "2024-06-01T00:00:00" as "2024-06-01 00:00". */
export function toDateInput(scale: string | null, value: string): string {
  const m = scale === 'hourly' ? /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value) : null;
  return m ? `${m[1]} ${m[2]}` : value;
}

/** The request date for what was typed: hourly "2024-06-01 00:00" (or with T) becomes "2024-06-01T00:00:00"; spaces trimmed. */
export function fromDateInput(scale: string | null, value: string): string {
  const v = value.trim();
  const m = scale === 'hourly' ? /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?$/.exec(v) : null;
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}` : v;
}
