/**
 * A long command's lines, with a beat: when nothing was said for `quietMs`, the step at work is said
 * again with the time so far, so a terminal (or `npm start`) is never silent for long while a build
 * runs. Lines are the caller's; the beat only repeats the phase it was given.
 */
import type { BuildProgress } from '../builder/build-progress.ts';

export interface Heartbeat {
  /** Says `line` now. */
  say(line: string): void;
  /** The step at work, for the beat (said at once when `announce`). */
  phase(name: string, announce?: boolean): void;
  stop(): void;
}

export function heartbeat(log: (line: string) => void, prefix: string, quietMs = 4500): Heartbeat {
  const begun = Date.now();
  let phase = 'starting';
  let last = Date.now();
  const say = (line: string) => {
    last = Date.now();
    log(line);
  };
  const timer = setInterval(
    () => {
      if (Date.now() - last >= quietMs) say(`${prefix}${phase}, ${Math.round((Date.now() - begun) / 1000)} s so far`);
    },
    Math.min(500, quietMs),
  );
  timer.unref?.();
  return {
    say,
    phase(name, announce = false) {
      phase = name;
      if (announce) say(`${prefix}${name}`);
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A build's progress as lines on stderr: each new step at once, and the step at work with how far
 * it is and the time so far whenever nothing was said for a beat.
 */
export function progressLines(prefix: string): { progress: BuildProgress; stop(): void } {
  const beat = heartbeat((line) => process.stderr.write(`${line}\n`), prefix);
  let step = '';
  return {
    progress(next, detail) {
      beat.phase(detail ? `${next} (${detail})` : next, next !== step);
      step = next;
    },
    stop: () => beat.stop(),
  };
}
