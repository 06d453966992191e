import { describe, expect, it } from 'vitest';
import { runtimeSettingsSchema, UserError } from '../../../src/core/index.js';
import { parseStore } from '../../../src/runtime/index.js';

describe('where the ledger lives', () => {
  it('takes embedded (the default) or a postgres:// URL', () => {
    expect(parseStore(undefined)).toEqual({ kind: 'embedded' });
    expect(parseStore('embedded')).toEqual({ kind: 'embedded' });
    expect(parseStore('postgres://fl:pw@db:5432/fl')).toEqual({
      kind: 'postgres',
      url: 'postgres://fl:pw@db:5432/fl',
    });
    expect(parseStore('postgresql://db/fl').kind).toBe('postgres');
  });

  it('refuses anything else naming where it came from, and never prints the password', () => {
    let error: unknown;
    try {
      parseStore('mysql://fl:secret@db/fl', 'runtime.store');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).code).toBe('INVALID_ARGUMENT');
    expect((error as UserError).message).toMatch(/^runtime\.store must be "embedded" or a postgres:\/\/ URL/);
    expect((error as UserError).message).not.toContain('secret');
    expect((error as UserError).hint).toContain('runtime.store postgres://');
  });

  it('runtime.store and runtime.service.lease_s validate in firstlight.yaml', () => {
    const ok = runtimeSettingsSchema.parse({ store: 'postgres://db/fl', service: { lease_s: 10 } });
    expect(ok.store).toBe('postgres://db/fl');
    expect(ok.service.lease_s).toBe(10);
    expect(runtimeSettingsSchema.parse({}).service.lease_s).toBe(30);
    expect(runtimeSettingsSchema.safeParse({ store: 'sqlite:x' }).success).toBe(false);
  });
});
