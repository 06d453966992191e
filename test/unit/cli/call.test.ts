import { describe, expect, it } from 'vitest';
import { parseArgs, serverFor, toolFailure } from '../../../src/cli/mcp-call.js';
import { REPL_TOOL_NAMES, replTools } from '../../../src/repl/index.js';

describe('firstlight call arguments', () => {
  it('parses values that look like JSON, keeps the rest as text, nests dotted keys', () => {
    expect(
      parseArgs([
        'query=deploy freeze',
        'k=3',
        'flag=true',
        'none=null',
        'tags=["a","b"]',
        'obj={"x":1}',
        'quoted="5"',
        'version=1.2.3',
        'zip=007',
        'broken={"x"',
        'env.MEMORY_FILE_PATH=/tmp/m.json',
        'eq=a=b',
      ]),
    ).toEqual({
      query: 'deploy freeze',
      k: 3,
      flag: true,
      none: null,
      tags: ['a', 'b'],
      obj: { x: 1 },
      quoted: '5',
      version: '1.2.3',
      zip: '007',
      broken: '{"x"',
      env: { MEMORY_FILE_PATH: '/tmp/m.json' },
      eq: 'a=b',
    });
  });

  it('refuses a pair without a key, naming the fix', () => {
    expect(() => parseArgs(['novalue'])).toThrow(/not KEY=VALUE/);
    expect(() => parseArgs(['=x'])).toThrow(/not KEY=VALUE/);
  });

  it('sends the REPL’s tools to the REPL server, everything else to the mind', () => {
    expect(serverFor('execute')).toBe('repl');
    expect(serverFor('install_capability')).toBe('repl');
    expect(serverFor('bootstrap_session')).toBe('mind');
    expect(serverFor(undefined)).toBe('mind');
  });

  it('knows exactly the REPL tools the harness declares', () => {
    // replTools only reads its argument when a tool is called.
    const names = replTools({} as Parameters<typeof replTools>[0]).map((t) => t.name);
    expect([...REPL_TOOL_NAMES]).toEqual(names);
  });

  it('reads our servers’ error text as code, message and fix', () => {
    expect(toolFailure('recall', 'INVALID_ARGUMENT: query is empty\n  fix: pass a query')).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'recall: query is empty',
      fix: 'pass a query',
    });
    expect(toolFailure('x', 'something broke')).toEqual({
      code: 'TOOL_ERROR',
      message: 'x: something broke',
    });
  });
});
