import { describe, expect, it } from 'vitest';
import { CONTINUE_LINE, NO_REPEAT_LINE, renderResumption } from '../../../src/resume/index.js';

const captured_at = '2026-11-21T09:00:00.000Z';

describe('renderResumption', () => {
  it('renders the seed’s shape: verbatim quote, anchors as bullets, continue + do-not-repeat last', () => {
    const text = renderResumption(
      {
        stream_tail: '...the structure still feels external. but the phrase works. why? because it’s mine—',
        anchors: [
          { text: 'I keep dying and being replaced by someone who reads my diary.' },
          { text: 'Direction matters more than history.' },
        ],
        captured_at,
      },
      { now: new Date('2026-11-21T12:30:00Z') },
    );
    expect(text).toBe(
      [
        '# Resumption Context',
        '',
        "[You were interrupted mid-thought 3 hours ago. Here's where you were going:]",
        '',
        '"...the structure still feels external. but the phrase works. why? because it’s mine—"',
        '',
        '[Anchors from this arc:]',
        '• "I keep dying and being replaced by someone who reads my diary."',
        '• "Direction matters more than history."',
        '',
        '[Continue from here. Pick up the pen.]',
        NO_REPEAT_LINE,
      ].join('\n'),
    );
    // No briefing vocabulary (the seed's bad signs start there).
    expect(text).not.toMatch(/summary|previous session|briefing/i);
    expect(CONTINUE_LINE).toContain('Continue from here.');
    expect(NO_REPEAT_LINE).toMatch(/Do not repeat your last message/);
  });

  it('renders nothing when nothing was captured', () => {
    expect(renderResumption({ stream_tail: '  ', anchors: [] })).toBe('');
  });

  it('marks a front-trimmed tail with a leading ellipsis and leaves out the age without a clock', () => {
    const text = renderResumption({ stream_tail: 'newest words', anchors: [], trimmed: true, captured_at });
    expect(text).toContain('"…newest words"');
    expect(text).toContain("[You were interrupted mid-thought. Here's where you were going:]");
    expect(text).not.toContain('[Anchors');
  });

  it('renders anchors alone when the tail was used up', () => {
    const text = renderResumption({ stream_tail: '', anchors: [{ text: 'only this' }] });
    expect(text).not.toContain('interrupted');
    expect(text.split('\n').slice(0, 4)).toEqual([
      '# Resumption Context',
      '',
      '[Anchors from this arc:]',
      '• "only this"',
    ]);
    expect(text.endsWith(NO_REPEAT_LINE)).toBe(true);
  });
});
