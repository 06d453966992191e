import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ConfigError,
  homePaths,
  NotFoundError,
  readTextIfExists,
  UserError,
  withFileLock,
  writeFileAtomically,
} from '../core/index.js';

const capabilitySpec = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().nullable().optional(),
});

const definition = z.object({
  source: z.string(),
  signature: z.string().optional(),
  order: z.array(z.number()).optional(),
});

/** The saved-state file, `<home>/repl/states/<name>.json` (docs/repl.md describes it). */
export const savedStateSchema = z.object({
  version: z.literal(1),
  saved_at: z.string(),
  capabilities: z.record(z.string(), capabilitySpec).default({}),
  native_capabilities: z
    .record(
      z.string(),
      z.object({ class_name: z.string(), source: z.string(), state: z.string().nullable() }),
    )
    .default({}),
  functions: z.record(z.string(), definition).default({}),
  classes: z.record(z.string(), definition).default({}),
  variables: z
    .record(
      z.string(),
      z.object({
        type: z.enum(['json', 'pickle', 'module', 'import']),
        value: z.unknown(),
        module: z.string().optional(),
      }),
    )
    .default({}),
  history: z.array(z.string()).default([]),
  execution_count: z.number().int().min(0).default(0),
  /** What could not be saved, with the reason (kept in the file so a restore can report it). */
  unsaved: z.array(z.object({ name: z.string(), kind: z.string(), reason: z.string() })).default([]),
});

export type SavedState = z.infer<typeof savedStateSchema>;
export type CapabilitySpecRecord = z.infer<typeof capabilitySpec>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Saved states of one home, one JSON file per name. */
export class StateStore {
  readonly dir: string;

  constructor(home: string) {
    this.dir = homePaths(home).replStates;
  }

  /** The file for a state name; `my_session` and `my_session.json` are the same state. */
  fileFor(name: string): string {
    const bare = name.endsWith('.json') ? name.slice(0, -5) : name;
    if (!NAME.test(bare) || bare.includes('..')) {
      throw new UserError(`state name "${name}" is not a plain file name`, {
        code: 'STATE_NAME',
        hint: 'give `name` as letters, digits, ".", "_" or "-" (no slashes), e.g. "my_session"',
      });
    }
    return join(this.dir, `${bare}.json`);
  }

  list(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((file) => file.endsWith('.json'))
        .map((file) => file.slice(0, -5))
        .sort();
    } catch {
      return [];
    }
  }

  exists(name: string): boolean {
    return readTextIfExists(this.fileFor(name)) !== undefined;
  }

  async write(name: string, state: SavedState): Promise<string> {
    const file = this.fileFor(name);
    mkdirSync(this.dir, { recursive: true });
    // Several harnesses may share a home: the lock keeps two saves of one name from interleaving.
    await withFileLock(file, () => writeFileAtomically(file, `${JSON.stringify(state, null, 2)}\n`));
    return file;
  }

  read(name: string): SavedState {
    const file = this.fileFor(name);
    const text = readTextIfExists(file);
    if (text === undefined) {
      const known = this.list();
      throw new NotFoundError(
        `no saved state "${name}" in ${this.dir}`,
        known.length > 0 ? `saved states: ${known.join(', ')}` : 'save one first with save_state(name)',
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${file} is not valid JSON`, {
        code: 'STATE_INVALID',
        file,
        hint: 'fix or delete the file; it is written by save_state',
        cause: error,
      });
    }
    const parsed = savedStateSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || '(top level)';
      throw new ConfigError(`${file}: ${field}: ${issue?.message}`, {
        code: 'STATE_INVALID',
        file,
        field,
        hint: `fix "${field}" (see docs/repl.md for the format) or delete the file`,
      });
    }
    return parsed.data;
  }
}
