import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../../src/core/index.js';
import {
  findProfile,
  loadProfile,
  resolveDocument,
  sectionOf,
  splitPin,
} from '../../../src/runtime/index.js';
import { tempDir } from '../../helpers/index.js';

let root: { dir: string; dispose: () => void };
let home: string;
let canon: string;
const profile = (name: string, fields: Record<string, unknown>) =>
  writeFileSync(join(home, 'personas', name), stringify({ system_prompt_uri: 'p.md', ...fields }));

beforeAll(() => {
  root = tempDir('firstlight-sources-');
  home = join(root.dir, 'home');
  canon = join(root.dir, 'canon');
  mkdirSync(join(home, 'personas'), { recursive: true });
  mkdirSync(join(canon, 'personas'), { recursive: true });
  writeFileSync(join(home, 'personas', 'p.md'), '# P\n\n## Voice\n\nplain\n\n## Other\n\nmore\n');
  profile('oddie@1.yaml', { persona: 'oddie', version: 1 });
  profile('oddie@2.yaml', { persona: 'oddie', version: 2 });
  profile('oddie@10.yaml', { persona: 'oddie', version: 10 });
  profile('plain.yaml', { persona: 'plain', version: 'v3' });
  writeFileSync(
    join(canon, 'personas', 'river.md'),
    '---\npersona: river\nversion: 1\n---\nYou are River.\n',
  );
  writeFileSync(join(canon, 'voice.md'), '# Voice\n\n## Brand guide\n\nNo otters.\n');
});
afterAll(() => root.dispose());

describe('persona references', () => {
  it('splits a pin off a name, never off a path', () => {
    expect(splitPin('oddie@2')).toEqual({ base: 'oddie', pin: '2' });
    expect(splitPin('oddie@v2')).toEqual({ base: 'oddie', pin: '2' });
    expect(splitPin('klappy://personas/oddie@1')).toEqual({ base: 'klappy://personas/oddie', pin: '1' });
    expect(splitPin('/a@b/c')).toEqual({ base: '/a@b/c' });
  });

  it('finds a pinned version, the latest unpinned, and a file whose version matches', () => {
    const at = (ref: string) =>
      findProfile(ref, { dirs: [join(home, 'personas')], sources: [], cwd: root.dir }).file;
    expect(at('oddie@2')).toBe(join(home, 'personas', 'oddie@2.yaml'));
    expect(at('oddie')).toBe(join(home, 'personas', 'oddie@10.yaml'));
    expect(at('plain@3')).toBe(join(home, 'personas', 'plain.yaml'));
    expect(loadProfile('plain@v3', { home }).version).toBe('v3');
    expect(at('oddie@3')).toBeUndefined();
    expect(() => loadProfile('plain@4', { home })).toThrow(/asks for version 4/);
  });

  it('maps a URI prefix to a directory, and reads a markdown profile whose body is its prompt', () => {
    const sources = [{ prefix: 'klappy://', dir: canon }];
    const river = loadProfile('klappy://personas/river', { home, sources });
    expect([river.persona, river.prompt]).toEqual(['river', { kind: 'body', text: 'You are River.' }]);
    expect(() => loadProfile('acme://personas/river', { home, sources })).toThrow(/no source maps acme:/);
  });
});

describe('document URIs', () => {
  it('resolve relative to the profile, through a prefix source, and to a #section', () => {
    const sources = [{ prefix: 'klappy://', dir: canon }];
    expect(resolveDocument('p.md#voice', { baseDir: join(home, 'personas'), sources })).toEqual({
      file: join(home, 'personas', 'p.md'),
      fragment: 'voice',
    });
    expect(resolveDocument('klappy://voice#brand-guide', { baseDir: home, sources })).toEqual({
      file: join(canon, 'voice.md'),
      fragment: 'brand-guide',
    });
    expect(resolveDocument('klappy://nowhere', { baseDir: home, sources })).toEqual({
      problem: expect.stringContaining('resolves nowhere'),
    });
    expect(sectionOf('# P\n\n## Voice\n\nplain\n\n## Other\n\nmore\n', 'voice')).toBe('## Voice\n\nplain');
  });

  it('make a profile that points nowhere a profile error naming the field', () => {
    profile('lost.yaml', { persona: 'lost', brand_discipline_uri: 'p.md#no-such-section' });
    profile('gone.yaml', { persona: 'gone', system_prompt_uri: 'klappy://gone' });
    const field = (ref: string) => {
      try {
        loadProfile(ref, { home, sources: [{ prefix: 'klappy://', dir: canon }] });
      } catch (error) {
        return (error as ConfigError).field;
      }
      return undefined;
    };
    expect(field('lost')).toBe('brand_discipline_uri');
    expect(field('gone')).toBe('system_prompt_uri');
    expect(() => loadProfile('gone', { home })).toThrow(ConfigError);
  });
});
