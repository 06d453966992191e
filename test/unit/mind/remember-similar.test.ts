import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMind, openRecallIndex, rememberIn, shortTitle } from '../../../src/mind/index.js';
import { tempHome } from '../../helpers/index.js';

describe('shortTitle', () => {
  it('makes a few words of the first line, not the whole line', () => {
    expect(
      shortTitle('We deploy with blue-green on Fridays only after 10am, rollback via DNS\n\nMore detail.'),
    ).toBe('Deploy with blue-green on Fridays');
    expect(shortTitle('Note that the cache TTL is 60 seconds since the incident.')).toBe(
      'Cache TTL is 60 seconds',
    );
    expect(shortTitle('# Release checklist for the mobile app\n\n1. bump')).toBe(
      'Release checklist for the mobile app',
    );
    expect(shortTitle('- **Alex** prefers [small PRs](https://x.test) under 300 lines')).toBe(
      'Alex prefers small PRs',
    );
    expect(shortTitle('Never push to main')).toBe('Never push to main');
    expect(
      shortTitle('Supercalifragilisticexpialidocious-and-then-some-more-words-joined-together'),
    ).toHaveLength(48);
  });
});

describe('remember: similar memories and default names', () => {
  const homes: { dispose: () => void }[] = [];
  afterEach(() => {
    for (const h of homes.splice(0)) h.dispose();
  });

  it('answers with similar memories (name, file, score) and merges nothing', async () => {
    const h = tempHome();
    homes.push(h);
    const mind = createMind({ home: h.dir });
    const index = openRecallIndex(mind);
    const deps = { mind, recall: () => index };
    const first = await rememberIn(deps, {
      type: 'feedback',
      content: 'Alex prefers pull requests under 300 lines and reviews them within a day.',
    });
    expect(first.similar).toEqual([]);
    await rememberIn(deps, { type: 'note', content: 'The VPN needs the new client since May.' });
    const second = await rememberIn(deps, {
      type: 'feedback',
      content: 'Alex wants PRs kept under 300 lines; he reviews within a day.',
    });
    expect(second.similar).toHaveLength(1);
    expect(second.similar[0]).toMatchObject({ name: first.name, file: first.file });
    expect(second.similar[0]!.score).toBeGreaterThan(0.45);
    expect(second.file).not.toBe(first.file);
    expect(readFileSync(join(h.dir, 'memory', first.file), 'utf8')).toContain('reviews them within a day');
    index.close();
    mind.close();
  });

  it('numbers a default name another memory holds, and refuses a given one', async () => {
    const h = tempHome();
    homes.push(h);
    const mind = createMind({ home: h.dir });
    const deps = { mind, recall: () => openRecallIndex(mind) };
    const a = await rememberIn(deps, { type: 'note', content: 'Deploy with care on Fridays. First.' });
    const b = await rememberIn(deps, { type: 'note', content: 'Deploy with care on Fridays. Second.' });
    expect([a.name, b.name]).toEqual(['Deploy with care on Fridays', 'Deploy with care on Fridays (2)']);
    expect(b.file).toBe('note_deploy_with_care_on_fridays_2.md');
    await expect(
      rememberIn(deps, { type: 'note', name: 'Deploy with care on Fridays', content: 'Third.' }),
    ).rejects.toMatchObject({ code: 'MEMORY_EXISTS' });
    mind.close();
  });
});
