// Progress of long jobs on stderr: an updating line on a terminal, a line every 10% otherwise.
export function progressReporter(label: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY;
  let lastDecile = -1;
  return (done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    const line = `${label}: ${done.toLocaleString('en')}/${total.toLocaleString('en')} (${percent}%)`;
    if (tty) {
      process.stderr.write(`\r${line}${done >= total ? '\n' : ''}`);
    } else if (Math.floor(percent / 10) !== lastDecile) {
      lastDecile = Math.floor(percent / 10);
      process.stderr.write(`${line}\n`);
    }
  };
}
