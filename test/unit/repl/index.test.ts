import { describe, expect, it } from 'vitest';
import * as repl from '../../../src/repl/index.js';

describe('repl public surface', () => {
  it('exports the harness, the tool declarations and the helpers', () => {
    expect(Object.keys(repl).sort()).toEqual(
      [
        'REPL_TOOL_NAMES',
        'Repl',
        'autosaveNameFor',
        'StateStore',
        'checkCapabilityName',
        'kernelPython',
        'kernelScript',
        'pythonNamesFor',
        'replTools',
        'savedStateSchema',
        'splitCommandLine',
        'toPythonIdentifier',
      ].sort(),
    );
  });

  it('ships the kernel inside the package', async () => {
    const { existsSync } = await import('node:fs');
    expect(existsSync(repl.kernelScript())).toBe(true);
    expect(existsSync(repl.kernelScript('jupyter'))).toBe(true);
  });
});
