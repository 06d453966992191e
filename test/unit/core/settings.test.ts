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

  it('reports unknown keys and bad YAML without throwing, and throws a ConfigError when strict', () => {
    writeFileSync(file, 'pakcet: {}\n');
    expect(loadSettings(file).problems.join()).toContain('unknown key "pakcet"');
    writeFileSync(file, 'packet: [unclosed\n');
    expect(loadSettings(file).problems.join()).toContain('not valid YAML');
    expect(() => loadSettings(file, { strict: true })).toThrow(ConfigError);
  });
});
