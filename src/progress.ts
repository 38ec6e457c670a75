// Progress of long jobs on stderr. On a terminal one line is rewritten in place (at most four times a second);
// otherwise a line is written at most every `everyMs`, the first and the last always.
const TERMINAL_EVERY_MS = 250;

export interface ProgressLine {
  /** Shows the line, if it is time; `last` shows it whatever the time (and ends it on a terminal). */
  update(line: string, last?: boolean): void;
  /** Takes an unfinished line off the terminal (before other output). */
  clear(): void;
}

export function progressLine(everyMs: number): ProgressLine {
  const tty = process.stderr.isTTY === true;
  const every = tty ? TERMINAL_EVERY_MS : everyMs;
  let written = Number.NEGATIVE_INFINITY;
  let open = false;
  return {
    update(line, last = false) {
      const now = performance.now();
      if (!last && now - written < every) return;
      written = now;
      if (!tty) return void process.stderr.write(`${line}\n`);
      process.stderr.write(`\r\x1b[K${line}${last ? '\n' : ''}`);
      open = !last;
    },
    clear() {
      if (open) process.stderr.write('\r\x1b[K');
      open = false;
    },
  };
}

/** `label: done/total (percent%)`, as a job's counts advance. */
export function progressReporter(label: string, everyMs = 5000): (done: number, total: number) => void {
  const line = progressLine(everyMs);
  return (done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    line.update(`${label}: ${done.toLocaleString('en')}/${total.toLocaleString('en')} (${percent}%)`, done >= total);
  };
}
