/**
 * The fields of one delimited line as exports write them: a field in double quotes may hold the
 * separator and doubled quotes. Returns null for a line whose quotes do not close (the caller names
 * the file and line).
 */
export function splitFields(line: string, sep = ','): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return null;
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      // Text between a closing quote and the separator is not a field of this form.
      if (i < line.length && !line.startsWith(sep, i)) return null;
      out.push(value);
      i += sep.length;
    } else {
      const c = line.indexOf(sep, i);
      const end = c < 0 ? line.length : c;
      out.push(line.slice(i, end));
      i = end + sep.length;
    }
  }
  return out;
}
