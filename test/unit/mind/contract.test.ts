import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assembleContract, CONTRACT_ERROR_PREFIX } from '../../../src/mind/index.js';
import { EXAMPLE_HOME, tempDir } from '../../helpers/index.js';

describe('assembleContract', () => {
  const temps: (() => void)[] = [];
  afterEach(() => {
    for (const dispose of temps.splice(0)) dispose();
  });
  function persona(files: Record<string, string>): string {
    const t = tempDir();
    temps.push(t.dispose);
    const dir = join(t.dir, 'persona');
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  }

  it('resolves nested @include lines relative to the including file', () => {
    const c = assembleContract(join(EXAMPLE_HOME, 'persona'));
    expect(c.available).toBe(true);
    expect(c.text).toContain('# Wren — mind contract');
    expect(c.text).toContain('### Handoff habits');
    expect(c.text).not.toContain('@include');
    expect(c.files).toEqual([
      'agent_system.md',
      'parts/identity.md',
      'parts/voice.md',
      'parts/cognition.md',
      'shared/handoff-habits.md',
      'parts/boundaries.md',
    ]);
  });

  it('fails loud on a missing include, naming the file and who included it', () => {
    const c = assembleContract(persona({ 'agent_system.md': 'Hello\n@include parts/missing.md\n' }));
    expect(c.available).toBe(false);
    expect(c.text.startsWith(CONTRACT_ERROR_PREFIX)).toBe(true);
    expect(c.text).toContain('missing file persona/parts/missing.md (included from agent_system.md)');
    expect(c.error).toBeDefined();
  });

  it('detects a cycle and shows the chain', () => {
    const c = assembleContract(
      persona({ 'agent_system.md': '@include a.md\n', 'a.md': '@include b.md\n', 'b.md': '@include a.md\n' }),
    );
    expect(c.available).toBe(false);
    expect(c.text).toContain('@include cycle: agent_system.md -> a.md -> b.md -> a.md');
  });

  it('refuses includes that leave persona/, by path or by symlink', () => {
    const dir = persona({ 'agent_system.md': '@include ../outside.md\n' });
    writeFileSync(join(dir, '..', 'outside.md'), 'secret');
    const byPath = assembleContract(dir);
    expect(byPath.available).toBe(false);
    expect(byPath.text).toContain('outside persona/');

    const dir2 = persona({ 'agent_system.md': '@include link.md\n' });
    writeFileSync(join(dir2, '..', 'target.md'), 'secret');
    symlinkSync(join(dir2, '..', 'target.md'), join(dir2, 'link.md'));
    const bySymlink = assembleContract(dir2);
    expect(bySymlink.available).toBe(false);
    expect(bySymlink.text).not.toContain('secret');
  });

  it('reports a missing persona directory and an empty root', () => {
    expect(assembleContract('/nonexistent/persona').text).toContain('persona directory not found');
    expect(assembleContract(persona({ 'agent_system.md': '  \n' })).text).toContain(
      'agent_system.md is empty',
    );
  });
});
