import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/text/index.js';

describe('sha256Hex', () => {
  it("gives node:crypto's digest for any string (the hooks and the server must name the same files)", () => {
    const samples = [
      '',
      'a',
      'session-🦦-ü',
      'x'.repeat(1000),
      'vscode-chat-session://local/abc',
      '\u0000\uffff',
    ];
    for (let i = 0; i < 200; i++)
      samples.push(
        String.fromCharCode(...Array.from({ length: i }, () => Math.floor(Math.random() * 0xd7ff))),
      );
    for (const text of samples)
      expect(sha256Hex(text), text).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });
});
