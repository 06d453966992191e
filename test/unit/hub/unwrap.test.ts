import { describe, expect, it } from 'vitest';
import { ToolResultError, unwrapToolResult } from '../../../src/hub/index.js';

describe('unwrapToolResult', () => {
  it('prefers structuredContent', () => {
    expect(
      unwrapToolResult({ content: [{ type: 'text', text: 'ignored' }], structuredContent: { a: 1 } }),
    ).toEqual({
      a: 1,
    });
  });

  it('parses JSON text, keeps other text, and lists several blocks', () => {
    expect(unwrapToolResult({ content: [{ type: 'text', text: '{"x": [1, 2]}' }] })).toEqual({ x: [1, 2] });
    expect(unwrapToolResult({ content: [{ type: 'text', text: 'Echo: hi' }] })).toBe('Echo: hi');
    expect(unwrapToolResult({ content: [{ type: 'text', text: '12 apples' }] })).toBe('12 apples');
    expect(
      unwrapToolResult({
        content: [
          { type: 'text', text: '1' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual([1, 'b']);
    expect(unwrapToolResult({ content: [] })).toBeNull();
  });

  it('returns non-text content as blocks', () => {
    const content = [{ type: 'image' as const, data: 'AAAA', mimeType: 'image/png' }];
    expect(unwrapToolResult({ content })).toEqual(content);
  });

  it('throws the error text for isError results', () => {
    expect(() =>
      unwrapToolResult({ isError: true, content: [{ type: 'text', text: 'ENOENT: nope' }] }),
    ).toThrow(ToolResultError);
    expect(() =>
      unwrapToolResult({ isError: true, content: [{ type: 'text', text: 'ENOENT: nope' }] }),
    ).toThrow('ENOENT: nope');
  });
});
