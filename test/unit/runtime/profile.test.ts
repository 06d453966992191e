import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/index.js';
import { parseProfile } from '../../../src/runtime/index.js';

const base = { persona: 'p', version: 1, system_prompt_uri: 'prompt.md' };

function error(raw: unknown): ConfigError {
  try {
    parseProfile(raw, '/x/p.yaml');
  } catch (e) {
    return e as ConfigError;
  }
  throw new Error('expected the profile to be refused');
}

describe('persona profiles', () => {
  it('reads both canon spellings into one form', () => {
    const a = parseProfile(
      {
        ...base,
        role: 'detection-only',
        brand_discipline: 'voice#brand',
        surface_profiles: { real_time_stream: { density: 'high' } },
      },
      '/x/a.yaml',
    );
    const b = parseProfile(
      {
        ...base,
        role_default: 'validator',
        brand_discipline_uri: 'voice#brand',
        surface_profiles: { 'real-time-stream': { density: 'high' } },
      },
      '/x/b.yaml',
    );
    for (const p of [a, b]) {
      expect(p.roleDefault).toBe('validator');
      expect(p.brandDisciplineUri).toBe('voice#brand');
      expect(Object.keys(p.surfaces)).toEqual(['real-time-stream']);
    }
  });

  it('names the field of a schema error', () => {
    expect(error({ ...base, surface_profiles: { audit: { density: 'dense' } } }).field).toBe(
      'surface_profiles.audit.density',
    );
    expect(error({ ...base, mcp_servers: { operational: ['nope'] } }).field).toBe(
      'mcp_servers.operational.0',
    );
    expect(error({ ...base, colour: 'blue' }).field).toBe('colour');
    expect(error({ persona: 'p' }).field).toBe('system_prompt_uri');
  });

  it('refuses at load a profile whose operational tools conflict with a role it allows', () => {
    const e = error({
      ...base,
      roles: ['builder', 'validator'],
      servers: { gh: { command: 'gh-mcp' } },
      mcp_servers: { operational: ['gh'] },
    });
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.field).toBe('mcp_servers.operational.0');
    expect(e.message).toMatch(/operational server "gh" has mutating tools, which role "validator"/);
  });

  it('accepts an operational server the profile declares read-only, or whose readOnlyHint it trusts', () => {
    const p = parseProfile(
      {
        ...base,
        roles: ['validator', 'builder'],
        servers: {
          kb: { command: 'kb', access: 'read_only' },
          files: { command: 'fs', trust_read_only_hint: true },
        },
        mcp_servers: { operational: ['kb', 'files'] },
      },
      '/x/p.yaml',
    );
    expect(p.operational).toEqual(['kb', 'files']);
  });

  it('supports custom roles but keeps the named mode-bound roles as the table has them', () => {
    const p = parseProfile(
      {
        ...base,
        roles: [
          { name: 'drafting', like: 'builder', freshness: 'light' },
          { name: 'observer', access: 'scratch' },
        ],
      },
      '/x/p.yaml',
    );
    expect(p.roles.get('drafting')).toMatchObject({
      mode: 'execution',
      access: 'mutating',
      freshness: 'light',
      named: false,
    });
    expect(p.roles.get('observer')).toMatchObject({ access: 'scratch', named: true });
    expect(error({ ...base, roles: [{ name: 'validator', access: 'mutating' }] }).field).toBe('roles.0.name');
    expect(
      error({ ...base, roles: [{ name: 'critic', mode: 'validation', access: 'mutating' }] }).field,
    ).toBe('roles.0.access');
  });
});
