import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwrapToolResult } from '../../../src/hub/index.js';
import { kernelScript } from '../../../src/repl/index.js';
import { run } from '../../helpers/index.js';

/**
 * A relay answer reaches Python as the backend's JSON-RPC response line, unwrapped there
 * (fl_capabilities.unwrap_answer), not in the harness. It must give what the hub's
 * unwrapToolResult gives a program in Node for the same result: the same value, or an error
 * with the same text.
 */
const RESULTS: Record<string, unknown> = {
  structured: { content: [{ type: 'text', text: 'ignored' }], structuredContent: { a: 1, b: [true, null] } },
  'structured, empty object': { content: [], structuredContent: {} },
  'structured only wrapping the text': {
    content: [{ type: 'text', text: '[DIR] src\n[FILE] a.json' }],
    structuredContent: { content: '[DIR] src\n[FILE] a.json' },
  },
  'structured wrapping JSON text': {
    content: [{ type: 'text', text: '{"a": 1}' }],
    structuredContent: { content: '{"a": 1}' },
  },
  'structured with one field, not the text': {
    content: [{ type: 'text', text: 'x' }],
    structuredContent: { content: 'y' },
  },
  'JSON text': { content: [{ type: 'text', text: ' {"x": [1, 2.5, "é"]}\n' }] },
  'plain text': { content: [{ type: 'text', text: 'Echo: hi' }] },
  'text that starts like a number': { content: [{ type: 'text', text: '12 apples' }] },
  'a number': { content: [{ type: 'text', text: '-42' }] },
  'a word that is JSON': { content: [{ type: 'text', text: 'null' }] },
  'not JSON in JavaScript': { content: [{ type: 'text', text: 'NaN' }] },
  'several blocks': {
    content: [
      { type: 'text', text: '1' },
      { type: 'text', text: 'b' },
    ],
  },
  'no content': { content: [] },
  'an image': { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
  'an error with text': {
    isError: true,
    content: [
      { type: 'text', text: 'ENOENT: nope' },
      { type: 'text', text: 'second line' },
    ],
  },
  'an error without text': { isError: true, content: [] },
};

/** What Node's unwrap gives: the value, or the error's message. */
function inNode(result: unknown): { value: unknown } | { error: string } {
  try {
    return { value: unwrapToolResult(result as Parameters<typeof unwrapToolResult>[0]) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** What the kernel's unwrap gives for each result sent as a response line, in one Python run. */
async function inPython(lines: string[]): Promise<({ value: unknown } | { error: string })[]> {
  const script = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(join(kernelScript(), '..'))})`,
    'import fl_capabilities',
    'out = []',
    'for line in sys.stdin.buffer.read().splitlines():',
    '    try:',
    '        out.append({"value": fl_capabilities.unwrap_answer(line, "cap", "tool")})',
    '    except fl_capabilities.CapabilityError as error:',
    '        out.append({"error": str(error)})',
    'print(json.dumps(out))',
  ].join('\n');
  const ran = await run('python3', ['-c', script], { input: `${lines.join('\n')}\n` });
  expect(ran.status, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

describe('relay answers unwrapped in the kernel', () => {
  it('give what unwrapToolResult gives in Node, result by result', async () => {
    const names = Object.keys(RESULTS);
    const lines = names.map((name, i) =>
      JSON.stringify({ result: RESULTS[name], jsonrpc: '2.0', id: `fl-raw-${i}` }),
    );
    const python = await inPython(lines);
    names.forEach((name, i) => {
      const node = inNode(RESULTS[name]);
      const expected = 'error' in node ? { error: `cap.tool failed: ${node.error}` } : node;
      expect(python[i], name).toEqual(expected);
    });
    // The text a structuredContent only wraps is the answer, as it is (issue 38).
    const value = (name: string) => python[names.indexOf(name)];
    expect(value('structured only wrapping the text')).toEqual({ value: '[DIR] src\n[FILE] a.json' });
    expect(value('structured wrapping JSON text')).toEqual({ value: '{"a": 1}' });
    expect(value('structured with one field, not the text')).toEqual({ value: { content: 'y' } });
  });

  it('raise a JSON-RPC error as the SDK words it, and a harness error as it is', async () => {
    const [protocol, harness] = await inPython([
      JSON.stringify({ jsonrpc: '2.0', id: 'fl-raw-1', error: { code: -32602, message: 'Invalid params' } }),
      `!${JSON.stringify('BACKEND_CRASHED: backend "cap" crashed (exit code 3)')}`,
    ]);
    expect(protocol).toEqual({ error: 'cap.tool failed: MCP error -32602: Invalid params' });
    expect(harness).toEqual({
      error: 'cap.tool failed: BACKEND_CRASHED: backend "cap" crashed (exit code 3)',
    });
  });
});
