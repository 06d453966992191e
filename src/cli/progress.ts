/**
 * Progress of a long call on a terminal: one line on stderr, redrawn in place (a spinner, the
 * latest message, a bar when the total is known), cleared when the call ends. Silent when stderr
 * is not a terminal: scripts read the answer, not the wait.
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ProgressLine {
  /** Shows a progress report (an MCP `notifications/progress`, or the harness's own). */
  update(progress: number, total?: number, message?: string): void;
  /** Clears the line; safe to call twice. */
  stop(): void;
}

/** The line as text: `⠙ starting npx … (12 s)` or `⠙ [#####-----] 50% indexing`. */
export function renderProgress(frame: number, progress: number, total?: number, message?: string): string {
  const spin = FRAMES[frame % FRAMES.length];
  const bar =
    total && total > 0
      ? (() => {
          const share = Math.max(0, Math.min(1, progress / total));
          const filled = Math.round(share * 20);
          return `[${'#'.repeat(filled)}${'-'.repeat(20 - filled)}] ${Math.round(share * 100)}% `;
        })()
      : '';
  return `${spin} ${bar}${message ?? `${progress}`}`;
}

/** A progress line on `stream` (stderr by default); a no-op when it is not a terminal. */
export function progressLine(
  stream: NodeJS.WriteStream = process.stderr,
  options: { label?: string } = {},
): ProgressLine {
  if (!stream.isTTY) return { update() {}, stop() {} };
  let frame = 0;
  let last: { progress: number; total?: number; message?: string } | undefined;
  let shown = false;
  const draw = () => {
    if (!last) return;
    // A terminal that reports no width (0: `script` without a window size) gets 80 columns.
    const columns = stream.columns || 80;
    const text = `${options.label ? `${options.label} ` : ''}${renderProgress(frame++, last.progress, last.total, last.message)}`;
    stream.write(`\r\x1b[2K${text.slice(0, Math.max(10, columns - 1))}`);
    shown = true;
  };
  // The spinner turns between reports too, so a quiet wait still looks alive.
  const timer = setInterval(draw, 120);
  timer.unref();
  return {
    update(progress, total, message) {
      last = {
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      };
      draw();
    },
    stop() {
      clearInterval(timer);
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}
