import { describe, expect, it } from 'vitest';
import { progressLine, renderProgress } from '../../../src/cli/progress.js';

describe('the progress line of a long call', () => {
  it('shows a spinner and the message, and a bar when the total is known', () => {
    expect(
      renderProgress(0, 12, undefined, 'starting npx -y @modelcontextprotocol/server-memory (12 s)'),
    ).toBe('⠋ starting npx -y @modelcontextprotocol/server-memory (12 s)');
    expect(renderProgress(1, 5, 10, 'indexing')).toBe('⠙ [##########----------] 50% indexing');
    expect(renderProgress(2, 3)).toBe('⠹ 3');
  });

  it('is silent when stderr is not a terminal', () => {
    let written = '';
    const stream = { isTTY: false, write: (s: string) => (written += s) } as unknown as NodeJS.WriteStream;
    const line = progressLine(stream);
    line.update(1, undefined, 'waiting');
    line.stop();
    expect(written).toBe('');
  });

  it('redraws one line on a terminal and clears it at the end', () => {
    let written = '';
    const stream = {
      isTTY: true,
      columns: 80,
      write: (s: string) => (written += s),
    } as unknown as NodeJS.WriteStream;
    const line = progressLine(stream, { label: 'install_capability' });
    line.update(2, undefined, 'starting server (2 s)');
    line.stop();
    expect(written).toBe('\r\x1b[2Kinstall_capability ⠋ starting server (2 s)\r\x1b[2K');
  });
});
