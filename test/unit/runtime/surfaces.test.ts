import { describe, expect, it } from 'vitest';
import {
  applyVoice,
  countTokens,
  extractFencedJson,
  isIdentifier,
  stripEmoji,
  VOICES,
} from '../../../src/runtime/index.js';

const NON_LATIN = [
  'Καλημέρα κόσμε, ὁ λόγος',
  'שלום עולם, בְּרֵאשִׁית',
  'नमस्ते दुनिया, संस्कृतम्',
  'مرحبا بالعالم، السَّلَامُ',
  '你好，世界。日本語のテキスト、한국어 텍스트',
  'CJK marks 〰 〽 ㊗ ㊙ stay as text',
];

describe('emoji and voice', () => {
  it('removes 🦦 from a machine field and keeps it in a human field in persona voice', () => {
    expect(applyVoice('🦦 all clear', 'persona', 'machine')).toBe('all clear');
    expect(applyVoice('🦦 all clear', 'persona', 'human')).toBe('🦦 all clear');
    expect(applyVoice({ title: 'fix 🦦 the gate', nested: ['ok 🦦'] }, 'persona', 'machine')).toEqual({
      title: 'fix the gate',
      nested: ['ok'],
    });
  });

  it('keeps functional emoji in persona and neutral voice, removes them in strict', () => {
    const text = '✅ passes ⚠️ flaky 🔴 broken ⏳ pending 🟡 partial 🦦';
    expect(applyVoice(text, 'neutral', 'human')).toBe('✅ passes ⚠️ flaky 🔴 broken ⏳ pending 🟡 partial');
    expect(applyVoice(text, 'persona', 'machine')).toBe('✅ passes ⚠️ flaky 🔴 broken ⏳ pending 🟡 partial');
    expect(applyVoice(text, 'strict', 'human')).toBe('passes flaky broken pending partial');
  });

  it.each(VOICES.flatMap((voice) => (['machine', 'human'] as const).map((tag) => [voice, tag] as const)))(
    'leaves Greek, Hebrew, Devanagari, Arabic and CJK untouched in %s voice (%s field)',
    (voice, tag) => {
      for (const text of NON_LATIN) expect(applyVoice(text, voice, tag)).toBe(text);
      const mixed = `${NON_LATIN.join(' ')} 🦦`;
      expect(applyVoice(mixed, voice, tag)).toBe(
        tag === 'human' && voice === 'persona' ? mixed : NON_LATIN.join(' '),
      );
    },
  );

  it('removes joined sequences, skin tones and flags whole', () => {
    expect(stripEmoji('team 👩‍👩‍👧 here', { functional: true })).toBe('team here');
    expect(stripEmoji('wave 👋🏽 now', { functional: true })).toBe('wave now');
    expect(stripEmoji('from 🇬🇷 Athens', { functional: true })).toBe('from Athens');
    expect(stripEmoji('heart ❤️ text ❤ stays', { functional: true })).toBe('heart text ❤ stays');
  });

  it('leaves plain symbols of text presentation alone', () => {
    expect(stripEmoji('© 2026 ™ ® ← → ↔ ★', { functional: false })).toBe('© 2026 ™ ® ← → ↔ ★');
  });
});

describe('fenced JSON', () => {
  it('takes the last ```json block and the prose around it', () => {
    const result = extractFencedJson('intro\n```json\n{"a":1}\n```\nmiddle\n```json\n{"b":2}\n```');
    expect(result.value).toEqual({ b: 2 });
    expect(result.prose).toBe('intro\n```json\n{"a":1}\n```\nmiddle');
  });

  it('names why there is no value', () => {
    expect(extractFencedJson('just prose').problem).toMatch(/no fenced/);
    expect(extractFencedJson('```json\n{nope}\n```').problem).toMatch(/does not parse/);
  });

  it('never changes identifiers or structure: keys, ids, URIs, paths, numbers; only prose strings', () => {
    const value = {
      id: 'f1-🦦',
      '🦦': 1,
      uri: 'klappy://canon/🦦 voice',
      link: 'https://example.com/🦦',
      path: 'src/🦦.ts',
      finding_id: 'f 🦦',
      weight: 2.5,
      tags: ['🦦', 'otter 🦦 notes'],
      summary: '🦦 the TTL is unset',
    };
    expect(applyVoice(value, 'strict', 'machine')).toEqual({
      ...value,
      tags: ['🦦', 'otter notes'],
      summary: 'the TTL is unset',
    });
    expect(isIdentifier('f1-🐟')).toBe(true);
    expect(isIdentifier('two words')).toBe(false);
    expect(isIdentifier('two words', 'resource_uri')).toBe(true);
    // Human prose: code spans and fenced blocks stay as written.
    expect(applyVoice('run `rm 🦦` then ```\n🦦\n``` done 🦦', 'neutral', 'human')).toBe(
      'run `rm 🦦` then ```\n🦦\n``` done',
    );
  });

  it('counts tokens with a BPE tokenizer, not characters ÷ 4', async () => {
    expect(await countTokens('hello world')).toBe(2);
    const chinese = '你好，世界。'.repeat(15);
    expect(await countTokens(chinese)).toBeGreaterThan(chinese.length / 4 + 20);
  });
});
