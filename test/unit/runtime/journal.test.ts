import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendJournal,
  JOURNAL_HEADER,
  parseFields,
  parseSince,
  readJournal,
} from '../../../src/runtime/index.js';
import { tempDir } from '../../helpers/index.js';

describe('journal', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('writes the 8-column header once, even under concurrent appends, and escapes newlines and tabs', async () => {
    const t = tempDir();
    cleanup = t.dispose;
    const now = new Date('2026-11-25T10:00:00Z');
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        appendJournal(
          t.dir,
          [{ kind: 'refusal', title: `r${i}`, session: `s${i}`, fields: { detail: 'a\tb\nc' } }],
          now,
        ),
      ),
    );
    const lines = readFileSync(join(t.dir, '2026-11-25.tsv'), 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(JOURNAL_HEADER);
    expect(lines.filter((l) => l === JOURNAL_HEADER)).toHaveLength(1);
    expect(lines).toHaveLength(13);
    for (const line of lines.slice(1)) expect(line.split('\t')).toHaveLength(8);
    const entries = readJournal(t.dir);
    expect(entries).toHaveLength(12);
    expect(entries[0]!.type).toBe('C');
    expect(entries[0]!.typeName).toBe('Constraint');
    expect(entries[0]!.kind).toBe('refusal');
    expect(entries[0]!.content).toContain('detail=a\tb\nc');
  });

  it('reads the headerless 3-column form beside the 8-column one', () => {
    const t = tempDir();
    cleanup = t.dispose;
    mkdirSync(t.dir, { recursive: true });
    writeFileSync(
      join(t.dir, '2026-05-12-ams.tsv'),
      'D\tAdopt the oddkit prompt pattern\tBrand canon by pointer\\nnot inlined\nO\tAn observation\tbody\n',
    );
    writeFileSync(
      join(t.dir, '2026-05-11-klappy.tsv'),
      `${JOURNAL_HEADER}\nD\tDecision\t\t5\t5\tstrong\tKeep both docs\tThey are layers\n`,
    );
    const entries = readJournal(t.dir);
    expect(entries.map((e) => [e.type, e.typeName, e.title])).toEqual([
      ['D', 'Decision', 'Keep both docs'],
      ['D', 'Decision', 'Adopt the oddkit prompt pattern'],
      ['O', 'Observation', 'An observation'],
    ]);
    expect(entries[1]!.content).toBe('Brand canon by pointer\nnot inlined');
    expect(readJournal(t.dir, { type: 'O' })).toHaveLength(1);
    expect(readJournal(t.dir, { type: 'Decision' })).toHaveLength(2);
  });

  it('filters by --since and by kind', async () => {
    const t = tempDir();
    cleanup = t.dispose;
    await appendJournal(
      t.dir,
      [{ kind: 'session_start', title: 'old', session: 'a' }],
      new Date('2026-11-20T10:00:00Z'),
    );
    await appendJournal(
      t.dir,
      [{ kind: 'denial', title: 'new', session: 'b' }],
      new Date('2026-11-25T10:00:00Z'),
    );
    const now = new Date('2026-11-25T11:00:00Z');
    expect(readJournal(t.dir, { since: '2h', now }).map((e) => e.session)).toEqual(['b']);
    expect(readJournal(t.dir, { since: '2026-11-19' }).map((e) => e.session)).toEqual(['a', 'b']);
    expect(readJournal(t.dir, { type: 'denial' }).map((e) => e.session)).toEqual(['b']);
    expect(() => parseSince('yesterday-ish')).toThrow(/neither a date nor a span/);
  });

  it("escapes a value's ';' and backslash instead of rewriting them, and reads them back", async () => {
    const t = tempDir();
    cleanup = t.dispose;
    const detail = 'a; b\\; c=d \\ e;';
    await appendJournal(t.dir, [
      { kind: 'refusal', title: 'r', session: 's1', fields: { detail, next: 'x' } },
    ]);
    const [entry] = readJournal(t.dir);
    expect(entry!.fields).toMatchObject({ session: 's1', detail, next: 'x' });
    expect(parseFields('a=1; b=x\\;y; c=')).toEqual({ a: '1', b: 'x;y', c: '' });
  });

  it('--type open matches the open facet', async () => {
    const t = tempDir();
    cleanup = t.dispose;
    await appendJournal(t.dir, [
      { kind: 'turn_yielded', title: 'q', session: 'a' },
      { kind: 'session_end', title: 'e', session: 'a' },
    ]);
    expect(readJournal(t.dir, { type: 'open' }).map((e) => e.kind)).toEqual(['turn_yielded']);
  });
});
