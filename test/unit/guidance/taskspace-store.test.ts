import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, UserError } from '../../../src/core/index.js';
import { readTaskspace, writeTaskspace } from '../../../src/guidance/index.js';
import { tempDir } from '../../helpers/index.js';

const temps: (() => void)[] = [];
afterEach(() => {
  for (const dispose of temps.splice(0)) dispose();
});

/** A store path in a fresh project; with `content`, the file exists holding exactly that. */
function storeFile(content?: string): string {
  const t = tempDir('firstlight-taskspace-');
  temps.push(t.dispose);
  const file = join(t.dir, '.firstlight', 'taskspace.json');
  if (content !== undefined) {
    mkdirSync(join(t.dir, '.firstlight'));
    writeFileSync(file, content);
  }
  return file;
}

describe('readTaskspace', () => {
  it('tells missing, empty, unreadable and ok apart, never throwing', () => {
    expect(readTaskspace(storeFile()).status).toBe('missing');
    expect(readTaskspace(storeFile('  \n')).status).toBe('empty');
    expect(readTaskspace(storeFile('{"name": "", "initial_prompt": null}')).status).toBe('empty');
    const broken = readTaskspace(storeFile('{"name": '));
    expect(broken).toMatchObject({ status: 'unreadable', taskspace: null });
    expect(broken.status === 'unreadable' && broken.problem).toMatch(/not valid JSON/);
    const typed = readTaskspace(storeFile('{"name": 7}'));
    expect(typed.status === 'unreadable' && typed.problem).toBe('"name" must be a string');
    expect(
      readTaskspace(storeFile('{"name": "A", "description": "B", "initial_prompt": "C"}')),
    ).toMatchObject({
      status: 'ok',
      taskspace: { name: 'A', description: 'B', initial_prompt: 'C' },
    });
  });
});

describe('writeTaskspace', () => {
  it('creates the store, keeps unknown keys, and reports when it clears initial_prompt', async () => {
    const file = storeFile();
    const now = () => new Date('2026-11-22T10:00:00Z');
    const created = await writeTaskspace(file, { name: 'Demo', initial_prompt: 'Do the thing' }, { now });
    expect(created).toMatchObject({ created: true, initial_prompt_cleared: false });
    expect(created.taskspace.id).toMatch(/^task-[0-9a-f]{12}$/);
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    raw.collaborator = 'sparkle';
    writeFileSync(file, JSON.stringify(raw));

    const first = await writeTaskspace(file, { description: 'A demo', initial_prompt: null }, { now });
    expect(first).toMatchObject({
      created: false,
      initial_prompt_cleared: true,
      taskspace: { name: 'Demo', description: 'A demo', initial_prompt: null },
    });
    const second = await writeTaskspace(file, { name: 'Demo 2', initial_prompt: null }, { now });
    expect(second.initial_prompt_cleared).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      id: created.taskspace.id,
      name: 'Demo 2',
      description: 'A demo',
      initial_prompt: null,
      collaborator: 'sparkle',
      updated_at: '2026-11-22T10:00:00.000Z',
    });
  });

  it('refuses to overwrite a store that does not parse', async () => {
    const file = storeFile('{"name": "half');
    await expect(writeTaskspace(file, { name: 'x' })).rejects.toBeInstanceOf(ConfigError);
    expect(readFileSync(file, 'utf8')).toBe('{"name": "half');
  });

  it('rejects a multi-line name and over-long fields, naming the field', async () => {
    const file = storeFile();
    await expect(writeTaskspace(file, { name: 'a\nb' })).rejects.toThrow(/one line/);
    await expect(writeTaskspace(file, { description: 'x'.repeat(5000) })).rejects.toBeInstanceOf(UserError);
  });

  it('rejects a blank name or description (read back trimmed, it would silently empty the field)', async () => {
    const file = storeFile('{"name": "Kept", "description": "Also kept", "initial_prompt": null}');
    await expect(writeTaskspace(file, { name: '   ' })).rejects.toThrow(/taskspace name is blank/);
    await expect(writeTaskspace(file, { description: '\n' })).rejects.toThrow(
      /taskspace description is blank/,
    );
    expect(readTaskspace(file)).toMatchObject({
      status: 'ok',
      taskspace: { name: 'Kept', description: 'Also kept' },
    });
  });

  it('serializes concurrent updates: exactly one of them clears the initial prompt', async () => {
    const file = storeFile('{"name": "Race", "description": "", "initial_prompt": "Start here"}');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        writeTaskspace(file, { description: `d${i}`, initial_prompt: null }),
      ),
    );
    expect(results.filter((r) => r.initial_prompt_cleared)).toHaveLength(1);
    const final = readTaskspace(file);
    expect(final.status).toBe('ok');
    expect(final.taskspace?.initial_prompt).toBeNull();
  });
});
