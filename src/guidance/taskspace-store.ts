import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import {
  ConfigError,
  isFirstlightError,
  readStateFile,
  UserError,
  withFileLock,
  writeStateFile,
} from '../core/index.js';

/** The taskspace as tools and the packet show it (a type alias: loose packet schemas accept it). */
export type Taskspace = {
  /** Stable id (`task-…`), given at the first write; null for a store written before ids. */
  id: string | null;
  name: string;
  description: string;
  /** The task given at creation; null once the agent has taken it up (first `update_taskspace`). */
  initial_prompt: string | null;
};

/** What reading the store found. Reading never throws: a bad file is a status, not a crash. */
export type TaskspaceRead =
  | { status: 'ok'; file: string; taskspace: Taskspace; updated_at: string | null }
  | { status: 'missing' | 'empty'; file: string; taskspace: null }
  | { status: 'unreadable'; file: string; taskspace: null; problem: string };

/** Longest accepted field values (a name is a tab title; a task may be long). */
export const TASKSPACE_LIMITS = { name: 200, description: 2_000, initial_prompt: 50_000 } as const;

/** Reads `<project>/.firstlight/taskspace.json`. */
export function readTaskspace(file: string): TaskspaceRead {
  // The common case on every packet: no store. Answer it without throwing ENOENT.
  if (!existsSync(file) && !isLink(file)) return { status: 'missing', file, taskspace: null };
  let text: string | undefined;
  try {
    text = readStateFile(file);
  } catch (error) {
    return { status: 'unreadable', file, taskspace: null, problem: (error as Error).message };
  }
  if (text === undefined) return { status: 'missing', file, taskspace: null };
  const parsed = parseStore(text);
  if ('problem' in parsed) return { status: 'unreadable', file, taskspace: null, problem: parsed.problem };
  if (parsed.raw === null) return { status: 'empty', file, taskspace: null };
  const taskspace = toTaskspace(parsed.raw);
  if (!taskspace.name && !taskspace.description && !taskspace.initial_prompt) {
    return { status: 'empty', file, taskspace: null };
  }
  const updated = parsed.raw.updated_at;
  return { status: 'ok', file, taskspace, updated_at: typeof updated === 'string' ? updated : null };
}

/** A change to the store. `undefined` leaves a field alone; `initial_prompt: null` clears it. */
export interface TaskspacePatch {
  name?: string;
  description?: string;
  initial_prompt?: string | null;
}

export interface TaskspaceWrite {
  file: string;
  taskspace: Taskspace;
  /** The store did not exist (or was empty) before this write. */
  created: boolean;
  /** This write removed an `initial_prompt` that was there before. */
  initial_prompt_cleared: boolean;
}

/**
 * Applies a patch under the store's cross-process lock and writes atomically. Keys firstlight
 * does not know are kept. A store that does not parse is refused, never overwritten: the user's
 * text would be lost.
 */
export async function writeTaskspace(
  file: string,
  patch: TaskspacePatch,
  options: { now?: () => Date } = {},
): Promise<TaskspaceWrite> {
  validatePatch(patch);
  return withFileLock(file, async () => {
    let text: string | undefined;
    try {
      text = readStateFile(file);
    } catch (error) {
      // A symlink out of .firstlight/ or a FIFO: refused as it is, naming the path.
      if (isFirstlightError(error)) throw error;
      throw unreadable(file, (error as Error).message);
    }
    const parsed = text === undefined ? { raw: null } : parseStore(text);
    if ('problem' in parsed) throw unreadable(file, parsed.problem);
    const before = parsed.raw ?? {};
    const previous = toTaskspace(before);
    const next: Record<string, unknown> = {
      ...before,
      id: previous.id ?? newTaskspaceId(),
      name: patch.name ?? previous.name,
      description: patch.description ?? previous.description,
      initial_prompt: patch.initial_prompt === undefined ? previous.initial_prompt : patch.initial_prompt,
      updated_at: (options.now ?? (() => new Date()))().toISOString(),
    };
    await writeStateFile(file, `${JSON.stringify(next, null, 2)}\n`);
    return {
      file,
      taskspace: toTaskspace(next),
      created: parsed.raw === null,
      initial_prompt_cleared: previous.initial_prompt !== null && next.initial_prompt === null,
    };
  });
}

/** A dangling symlink is not "missing": existsSync follows links. */
function isLink(file: string): boolean {
  // throwIfNoEntry: no store is the common case on every packet, and a thrown ENOENT costs
  // about 50 µs of bootstrap_session.
  return lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}

/** The JSON object in the store, null for an empty file, or what is wrong with it. */
export function parseStore(text: string): { raw: Record<string, unknown> | null } | { problem: string } {
  if (text.trim() === '') return { raw: null };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { problem: `not valid JSON (${(error as Error).message})` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problem: 'the top level must be a JSON object {"name", "description", "initial_prompt"}' };
  }
  const record = raw as Record<string, unknown>;
  for (const field of ['name', 'description'] as const) {
    if (record[field] !== undefined && typeof record[field] !== 'string') {
      return { problem: `"${field}" must be a string` };
    }
  }
  const initial = record.initial_prompt;
  if (initial !== undefined && initial !== null && typeof initial !== 'string') {
    return { problem: '"initial_prompt" must be a string or null' };
  }
  return { raw: record };
}

/** A new taskspace id: `task-` and 12 hex digits. */
export function newTaskspaceId(): string {
  return `task-${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** A taskspace id as accepted on the command line and as a file name. */
export const TASKSPACE_ID = /^task-[a-z0-9-]{1,64}$/;

export function toTaskspace(raw: Record<string, unknown>): Taskspace {
  const initial = typeof raw.initial_prompt === 'string' ? raw.initial_prompt.trim() : '';
  return {
    id: typeof raw.id === 'string' && TASKSPACE_ID.test(raw.id) ? raw.id : null,
    name: typeof raw.name === 'string' ? raw.name.trim() : '',
    description: typeof raw.description === 'string' ? raw.description.trim() : '',
    initial_prompt: initial === '' ? null : initial,
  };
}

export function validatePatch(patch: TaskspacePatch): void {
  for (const field of ['name', 'description', 'initial_prompt'] as const) {
    const value = patch[field];
    // Stored values are trimmed on read: a blank one would silently empty the field.
    if (typeof value === 'string' && value.trim() === '') {
      throw new UserError(`taskspace ${field} is blank`, {
        code: 'INVALID_ARGUMENT',
        hint: `give "${field}" some text${field === 'initial_prompt' ? ', or clear it with null' : ', or leave it out to keep the current one'}`,
      });
    }
    if (typeof value === 'string' && value.length > TASKSPACE_LIMITS[field]) {
      throw new UserError(
        `taskspace ${field} is ${value.length} characters; the limit is ${TASKSPACE_LIMITS[field]}`,
        {
          code: 'INVALID_ARGUMENT',
          hint: `shorten "${field}"`,
        },
      );
    }
  }
  if (typeof patch.name === 'string' && /[\r\n]/.test(patch.name)) {
    throw new UserError('taskspace name must be one line', {
      code: 'INVALID_ARGUMENT',
      hint: 'give "name" without line breaks (it is a tab or window title)',
    });
  }
}

export function unreadable(file: string, problem: string): ConfigError {
  return new ConfigError(`taskspace store ${file} is unreadable: ${problem}`, {
    code: 'TASKSPACE_UNREADABLE',
    file,
    hint: `fix the JSON in ${file} (an object with "name", "description", "initial_prompt"), or delete it to start over`,
  });
}
