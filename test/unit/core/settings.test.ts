import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, defaultSettings, loadSettings } from '../../../src/core/index.js';
import { tempDir } from '../../helpers/index.js';

describe('loadSettings', () => {
  const t = tempDir();
  afterAll(() => t.dispose());
  const file = join(t.dir, 'firstlight.yaml');

  it('gives defaults for a missing file', () => {
    expect(loadSettings(join(t.dir, 'none.yaml'))).toEqual({ settings: defaultSettings(), problems: [] });
    expect(defaultSettings().packet.markdown_max_chars).toBe(8000);
  });

  it('names the field of an invalid value and falls back to defaults', () => {
    writeFileSync(file, 'packet:\n  markdown_max_chars: "lots"\n');
    const { settings, problems } = loadSettings(file);
    expect(settings.packet.markdown_max_chars).toBe(8000);
    expect(problems.join('\n')).toContain('packet.markdown_max_chars');
  });

  it('caps packet.markdown_max_chars at 8,000, naming the key and the limit', () => {
    writeFileSync(file, 'packet:\n  markdown_max_chars: 8000\n');
    expect(loadSettings(file)).toEqual({ settings: defaultSettings(), problems: [] });
    writeFileSync(file, 'packet:\n  markdown_max_chars: 8001\n');
    const { settings, problems } = loadSettings(file);
    expect(settings.packet.markdown_max_chars).toBe(8000);
    expect(problems).toEqual([
      `${file}: packet.markdown_max_chars: must be at most 8000 (injected text stays under 8,000 characters); set 1000-8000; using the default`,
    ]);
    expect(() => loadSettings(file, { strict: true })).toThrow(
      /packet\.markdown_max_chars: must be at most 8000/,
    );
  });

  it('falls back per invalid value, keeping the valid settings beside it', () => {
    writeFileSync(
      file,
      'packet:\n  markdown_max_chars: 99999\n  typo: 1\nresumption:\n  scope: session\n  max_tokens: -5\ngate:\n  tools: ["", "Bash"]\n',
    );
    const { settings, problems } = loadSettings(file);
    expect(settings.resumption.scope).toBe('session');
    expect(settings.resumption.max_tokens).toBe(300);
    expect(settings.packet.markdown_max_chars).toBe(8000);
    expect(settings.gate.tools).toBeUndefined();
    const text = problems.join('\n');
    for (const field of [
      'packet.markdown_max_chars',
      'packet.typo: unknown key',
      'resumption.max_tokens',
      'gate.tools.0',
    ])
      expect(text).toContain(field);
  });

  it('reports unknown keys and bad YAML without throwing, and throws a ConfigError when strict', () => {
    writeFileSync(file, 'pakcet: {}\n');
    expect(loadSettings(file).problems.join()).toContain('unknown key "pakcet"');
    writeFileSync(file, 'packet: [unclosed\n');
    expect(loadSettings(file).problems.join()).toContain('not valid YAML');
    expect(() => loadSettings(file, { strict: true })).toThrow(ConfigError);
  });
});
