import type { Progress } from './cli-command';

/**
 * Progress on stderr (stdout carries only the command's JSON): on a terminal one bar redrawn in place at most ten
 * times a second; otherwise (a pipe, CI, a log file) a plain line at every tenth of the way.
 */
export function progressOn(stream: NodeJS.WriteStream, label: string, total: number): Progress {
  let done = 0;
  let shownTenth = -1;
  let lastDraw = 0;
  const tty = stream.isTTY === true;
  const draw = (force: boolean) => {
    const share = total > 0 ? Math.min(1, done / total) : 1;
    if (tty) {
      const now = Date.now();
      if (!force && now - lastDraw < 100) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round(share * width);
      stream.write(
        `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${done}/${total}`,
      );
    } else {
      const tenth = Math.floor(share * 10);
      if (tenth === shownTenth && !force) return;
      shownTenth = tenth;
      stream.write(`${label}: ${done}/${total} (${tenth * 10}%)\n`);
    }
  };
  return {
    tick(n = 1) {
      done += n;
      draw(false);
    },
    done() {
      done = Math.max(done, total);
      if (tty) {
        draw(true);
        stream.write('\n');
      } else if (shownTenth !== 10) draw(true);
    },
  };
}
