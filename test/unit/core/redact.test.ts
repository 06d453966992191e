import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Redactor,
  readRedactionTotals,
  redactConfigOf,
  redactedJson,
  redactFor,
  redactorFor,
} from '../../../src/core/redact/index.js';
import { lookAlikes, plantedSecrets } from '../../fixtures/redaction/corpus.js';
import { tempDir } from '../../helpers/index.js';

describe('Redactor on the corpus', () => {
  const redactor = new Redactor();

  it('plants at least 30 secrets of at least 15 kinds, and 30 look-alikes', () => {
    expect(plantedSecrets().length).toBeGreaterThanOrEqual(30);
    expect(new Set(plantedSecrets().map((p) => p.kind)).size).toBeGreaterThanOrEqual(15);
    expect(lookAlikes().length).toBeGreaterThanOrEqual(30);
  });

  it.each(plantedSecrets().map((p) => [p.kind, p] as const))('redacts a planted %s', (_kind, planted) => {
    const counts: Record<string, number> = {};
    const out = redactor.redact(planted.text, counts);
    expect(out).not.toContain(planted.secret);
    expect(out).toContain(`[redacted:${planted.kind}]`);
    expect(counts[planted.kind]).toBeGreaterThanOrEqual(1);
  });

  it.each(lookAlikes().map((l) => [l.what, l] as const))('keeps a look-alike: %s', (_what, look) => {
    const counts: Record<string, number> = {};
    expect(redactor.redact(look.text, counts)).toBe(look.text);
    expect(counts).toEqual({});
  });

  it('prints the corpus figures: kinds, planted, caught, false positives, µs per text', () => {
    const planted = plantedSecrets();
    const looks = lookAlikes();
    const caught = planted.filter((p) => !redactor.redact(p.text).includes(p.secret));
    const falsePositives = looks.filter((l) => redactor.redact(l.text) !== l.text);
    const texts = [...planted.map((p) => p.text), ...looks.map((l) => l.text)];
    const rounds: number[] = [];
    for (let round = 0; round < 30; round++) {
      const t0 = performance.now();
      for (const t of texts) redactor.redact(t);
      rounds.push(((performance.now() - t0) * 1000) / texts.length);
    }
    rounds.sort((a, b) => a - b);
    const kinds = new Set(planted.map((p) => p.kind)).size;
    process.stderr.write(
      `redaction corpus: ${kinds} kinds, ${planted.length} planted, ${caught.length} caught, ` +
        `${looks.length} look-alikes, ${falsePositives.length} false positives, ` +
        `${rounds[15]!.toFixed(1)} µs per text (median of 30 rounds)\n`,
    );
    expect(caught.length).toBe(planted.length);
    expect(falsePositives.map((l) => l.what)).toEqual([]);
  });
});

describe('Redactor', () => {
  it('removes <private> blocks, closed or not, whatever their case', () => {
    const counts: Record<string, number> = {};
    const r = new Redactor();
    expect(r.redact('keep <private>my diary</private> this <PRIVATE>and\nthat</Private>.', counts)).toBe(
      'keep  this .',
    );
    expect(r.redact('before <private>never closed', counts)).toBe('before ');
    expect(counts).toEqual({ private: 3 });
  });

  it('redacts a secret inside JSON text without breaking the JSON', () => {
    const r = new Redactor();
    const args = JSON.stringify({ command: 'deploy', env: { API_TOKEN: 'a1B2c3D4e5F6g7H8i9J0kk' } });
    const out = r.redact(args);
    expect(JSON.parse(out)).toEqual({ command: 'deploy', env: { API_TOKEN: '[redacted:generic-secret]' } });
  });

  it('is off with enabled: false, adds patterns and keeps what the allowlist names', () => {
    const text = 'emp EMP-123456 and key AKIAIOSFODNN7EXAMPLE';
    expect(new Redactor({ enabled: false, patterns: [], allow: [] }).redact(text)).toBe(text);
    const custom = new Redactor({
      enabled: true,
      patterns: [{ kind: 'employee-id', regex: 'EMP-[0-9]{6}' }],
      allow: ['/EXAMPLE$/'],
    });
    expect(custom.redact(text)).toBe('emp [redacted:employee-id] and key AKIAIOSFODNN7EXAMPLE');
    expect(new Redactor({ enabled: true, patterns: [], allow: ['AKIAIOSFODNN7EXAMPLE'] }).redact(text)).toBe(
      text,
    );
  });
});

describe('redact settings and counts', () => {
  const t = tempDir();
  afterAll(() => t.dispose());

  it('reads redact: from firstlight.yaml, naming each invalid entry', () => {
    expect(redactConfigOf({ redact: false }).config.enabled).toBe(false);
    const { config, problems } = redactConfigOf({
      redact: {
        patterns: [
          { kind: 'ticket', regex: 'TKT-\\d+' },
          { kind: 'Bad Kind', regex: 'x' },
          { kind: 'ok', regex: '(' },
        ],
        allow: ['keep-me', '/(/'],
        colour: 'blue',
      },
    });
    expect(config).toEqual({
      enabled: true,
      patterns: [{ kind: 'ticket', regex: 'TKT-\\d+' }],
      allow: ['keep-me'],
    });
    expect(problems).toEqual([
      'redact.patterns[1].kind: a short lower-case name (a-z, 0-9, _ and -), e.g. employee-id',
      "redact.patterns[2].regex: a JavaScript regular expression, e.g. 'EMP-[0-9]{6}'",
      'redact.allow[1]: a string kept as it is, or /regex/',
      'redact.colour: unknown key is ignored',
    ]);
  });

  it("follows the home's firstlight.yaml and counts each redacting write by kind and writer", () => {
    const home = join(t.dir, 'home');
    const now = new Date('2026-09-01T10:00:00Z');
    expect(redactFor(home, 'remember', 'password=hunter2 ok', now)).toBe('password=[redacted:password] ok');
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'firstlight.yaml'),
      'redact:\n  patterns:\n    - kind: ticket\n      regex: "TKT-[0-9]+"\n',
    );
    expect(redactorFor(home).redact('see TKT-42')).toBe('see [redacted:ticket]');
    const line = redactedJson(home, 'event', { id: 'ev_1', args: '{"password":"pw1!"}', n: 3 }, now);
    expect(JSON.parse(line)).toEqual({ id: 'ev_1', args: '{"password":"[redacted:password]"}', n: 3 });
    writeFileSync(join(home, 'firstlight.yaml'), 'redact: false\n');
    expect(redactFor(home, 'capture', 'password=hunter2', now)).toBe('password=hunter2');
    const totals = readRedactionTotals(home);
    expect(totals).toEqual({
      total: 2,
      by_kind: { password: 2 },
      by_writer: { remember: 1, event: 1 },
      since: '2026-09-01T10:00:00.000Z',
    });
    expect(readFileSync(join(home, 'redactions.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });
});

describe('Redactor on clipped text', () => {
  it('redacts the start of a provider token cut by clipping, and leaves other clipped text alone', () => {
    const r = new Redactor();
    expect(r.redact('token was ghp_AbCdEf012…')).toBe('token was [redacted:clipped-token]');
    expect(r.redact('see the sk-ant-api03-xY…')).toBe('see the [redacted:clipped-token]');
    expect(r.redact('a long log line that was cut…')).toBe('a long log line that was cut…');
  });
});
