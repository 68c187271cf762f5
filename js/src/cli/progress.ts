// Progress on standard error: lines, lines/s, and with a known input size the percent and the time left.
// Redrawn in place on a terminal; plain lines (one a second) elsewhere, with --progress.

export interface Progress {
  update(bytes: number, lines: number): void;
  done(lines: number): void;
}

export function makeProgress(
  name: string,
  what: string,
  totalBytes: number | undefined,
  forced: boolean,
  never: boolean,
): Progress | undefined {
  const terminal = Boolean(process.stderr.isTTY);
  if (never || !(forced || terminal)) return undefined;
  const started = Date.now();
  const interval = terminal ? 200 : 1000;
  let bytes = 0;
  let last = 0;
  const draw = (lines: number, final: boolean) => {
    const seconds = Math.max((Date.now() - started) / 1000, 1e-3);
    let text = `${name}: ${lines.toLocaleString('en')} ${what}, ${Math.round(lines / seconds).toLocaleString('en')} lines/s`;
    if (totalBytes) {
      const fraction = Math.min(bytes / totalBytes, 1);
      const left = fraction > 0 ? Math.round(seconds / fraction - seconds) : 0;
      text += `, ${(fraction * 100).toFixed(1)}%, ${left}s left`;
    }
    process.stderr.write(terminal ? `\r${text}\x1b[K${final ? '\n' : ''}` : `${text}\n`);
  };
  return {
    update(n, lines) {
      bytes += n;
      const now = Date.now();
      if (now - last > interval) {
        last = now;
        draw(lines, false);
      }
    },
    done(lines) {
      draw(lines, true);
    },
  };
}
