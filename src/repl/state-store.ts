import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import {
  ConfigError,
  homePaths,
  NotFoundError,
  readStateFile,
  UserError,
  withFileLock,
  writeStateFile,
} from '../core/index.js';

/**
 * The seed's dict form of `args` (`{"root": "/home/user"}`) as words: each key becomes a flag
 * (`--root`, or the key itself when it starts with `-`) followed by its value; `true` gives
 * the bare flag, `false` and `null` leave it out.
 */
export function argsFromDict(args: Record<string, string | number | boolean | null>): string[] {
  return Object.entries(args).flatMap(([key, value]) => {
    const flag = key.startsWith('-') ? key : `--${key}`;
    if (value === false || value === null) return [];
    return value === true ? [flag] : [flag, String(value)];
  });
}

const capabilitySpec = z.object({
  command: z.string().min(1),
  /** Absent: `command` may be a whole command line (the seed's form), split at install. */
  args: z
    .union([
      z.array(z.string()),
      z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).transform(argsFromDict),
    ])
    .optional(),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().nullable().optional(),
});

const definition = z.object({
  source: z.string(),
  signature: z.string().optional(),
  order: z.array(z.number()).optional(),
});

const nativeCapability = z.object({
  class_name: z.string(),
  source: z.string(),
  state: z.string().nullable().default(null),
});

/** Any type name: the kernel restores json, pickle, module and import, and reports the rest. */
const variable = z.object({ type: z.string(), value: z.unknown(), module: z.string().optional() });

/** The entries of each section; one bad entry is reported alone, the rest still load. */
const SECTIONS = {
  capabilities: capabilitySpec,
  native_capabilities: nativeCapability,
  functions: definition,
  classes: definition,
  variables: variable,
} as const;
export type Section = keyof typeof SECTIONS;

const problem = z.object({ name: z.string(), kind: z.string(), reason: z.string() });

const envelope = {
  version: z.literal(1),
  saved_at: z.string().default(''),
  history: z.array(z.string()).default([]),
  execution_count: z.number().int().min(0).default(0),
  /** What could not be saved, with the reason (kept in the file so a restore can report it). */
  unsaved: z.array(problem).default([]),
};

/** The saved-state file, `<home>/repl/states/<name>.json` (docs/repl.md describes it). */
export const savedStateSchema = z.object({
  ...envelope,
  capabilities: z.record(z.string(), SECTIONS.capabilities).default({}),
  native_capabilities: z.record(z.string(), SECTIONS.native_capabilities).default({}),
  functions: z.record(z.string(), SECTIONS.functions).default({}),
  classes: z.record(z.string(), SECTIONS.classes).default({}),
  variables: z.record(z.string(), SECTIONS.variables).default({}),
});

/** What `read` checks first: the envelope, with each section's entries left for one by one. */
const looseSchema = z.object({
  ...envelope,
  ...(Object.fromEntries(
    Object.keys(SECTIONS).map((section) => [section, z.record(z.string(), z.unknown()).default({})]),
  ) as Record<Section, z.ZodDefault<z.ZodRecord<z.ZodString, z.ZodUnknown>>>),
});

export type SavedState = z.infer<typeof savedStateSchema>;
export type CapabilitySpecRecord = z.infer<typeof capabilitySpec>;

/** The item kind of each section, as restore failures name it. */
export const KIND_OF: Record<Section, string> = {
  capabilities: 'capability',
  native_capabilities: 'native_capability',
  functions: 'function',
  classes: 'class',
  variables: 'variable',
};

/** An entry of a saved file, with why it was not restored (its shape, or a failed restore). */
export interface UnrestoredEntry {
  section: Section;
  entry: unknown;
  problem: { name: string; kind: string; reason: string };
}

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
    return readStateFile(this.fileFor(name)) !== undefined;
  }

  /**
   * Renames a state out of the way (`<name>.unreadable-<time>.json`), so that a file that could
   * not be read is kept for a human instead of being overwritten by the next save.
   */
  setAside(name: string, now: Date): string {
    const file = this.fileFor(name);
    // Not through fileFor: the suffix may take a 100-character name past what a state name may be.
    const aside = `${file.slice(0, -'.json'.length)}.unreadable-${now.toISOString().replace(/[:.]/g, '-')}.json`;
    renameSync(file, aside);
    return aside;
  }

  async write(name: string, state: SavedState): Promise<string> {
    const file = this.fileFor(name);
    // Several harnesses may share a home: the lock keeps two saves of one name from interleaving.
    await withFileLock(file, () => writeStateFile(file, `${JSON.stringify(state, null, 2)}\n`));
    return file;
  }

  /** Reads a state; entries of the wrong shape come back in `invalid`, not as a failure. */
  read(name: string): { state: SavedState; invalid: UnrestoredEntry[] } {
    const file = this.fileFor(name);
    const text = readStateFile(file);
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
    const parsed = looseSchema.safeParse(raw);
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
    const state = { ...parsed.data } as SavedState;
    const invalid: UnrestoredEntry[] = [];
    for (const section of Object.keys(SECTIONS) as Section[]) {
      const entries: Record<string, unknown> = {};
      for (const [item, entry] of Object.entries(parsed.data[section])) {
        const checked = SECTIONS[section].safeParse(entry);
        if (checked.success) {
          entries[item] = checked.data;
          continue;
        }
        const issue = checked.error.issues[0];
        const where = [section, item, ...(issue?.path ?? [])].join('.');
        invalid.push({
          section,
          entry,
          problem: {
            name: item,
            kind: KIND_OF[section],
            reason: `invalid entry ${where}: ${issue?.message}`,
          },
        });
      }
      (state as Record<Section, unknown>)[section] = entries;
    }
    return { state, invalid };
  }
}
