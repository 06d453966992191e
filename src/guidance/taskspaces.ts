import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NotFoundError, UserError, withFileLock, writeFileAtomically } from '../core/index.js';
import {
  newTaskspaceId,
  parseStore,
  readTaskspace,
  TASKSPACE_ID,
  type Taskspace,
  type TaskspacePatch,
  toTaskspace,
  unreadable,
  validatePatch,
} from './taskspace-store.js';

/**
 * Several taskspaces per project. The current one is `.firstlight/taskspace.json` (what the
 * yiasou prompt, the packet and the taskspace tools read); the others wait in
 * `.firstlight/taskspaces/<id>.json`. Switching swaps files, under the current file's lock.
 */
export interface TaskspaceEntry {
  id: string;
  taskspace: Taskspace;
  current: boolean;
  file: string;
}

/** The directory of the waiting taskspaces, beside the current one's file. */
export function taskspacesDir(currentFile: string): string {
  return join(dirname(currentFile), 'taskspaces');
}

/** Every taskspace of the project, the current one first; unreadable files are skipped. */
export function listTaskspaces(currentFile: string): TaskspaceEntry[] {
  const entries: TaskspaceEntry[] = [];
  const current = readTaskspace(currentFile);
  if (current.status === 'ok') {
    entries.push({
      id: current.taskspace.id ?? '(no id yet)',
      taskspace: current.taskspace,
      current: true,
      file: currentFile,
    });
  }
  const dir = taskspacesDir(currentFile);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return entries;
  }
  for (const name of names.sort()) {
    const read = readTaskspace(join(dir, name));
    if (read.status !== 'ok') continue;
    entries.push({
      id: read.taskspace.id ?? name.replace(/\.json$/, ''),
      taskspace: read.taskspace,
      current: false,
      file: read.file,
    });
  }
  return entries;
}

/** Reads the current store's raw object (null when missing or empty); refuses a broken one. */
function readRaw(file: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw unreadable(file, (error as Error).message);
  }
  const parsed = parseStore(text);
  if ('problem' in parsed) throw unreadable(file, parsed.problem);
  return parsed.raw;
}

/** Moves the current taskspace (if any) into the waiting directory; returns its id. */
async function setAside(currentFile: string, raw: Record<string, unknown> | null): Promise<string | null> {
  if (raw === null) return null;
  const t = toTaskspace(raw);
  if (!t.name && !t.description && !t.initial_prompt) return null;
  const id = t.id ?? newTaskspaceId();
  const dir = taskspacesDir(currentFile);
  mkdirSync(dir, { recursive: true });
  await writeFileAtomically(join(dir, `${id}.json`), `${JSON.stringify({ ...raw, id }, null, 2)}\n`);
  return id;
}

/** Starts a new current taskspace; the one that was current waits in `taskspaces/`. */
export async function newTaskspace(
  currentFile: string,
  patch: TaskspacePatch,
  options: { now?: () => Date } = {},
): Promise<{ created: TaskspaceEntry; setAside: string | null }> {
  validatePatch(patch);
  if (!patch.name) {
    throw new UserError('a new taskspace needs a name', {
      code: 'INVALID_ARGUMENT',
      hint: 'firstlight taskspace new "Short title" [--description "one line"] [--initial-prompt "TASK"]',
    });
  }
  return withFileLock(currentFile, async () => {
    const aside = await setAside(currentFile, readRaw(currentFile));
    const next = {
      id: newTaskspaceId(),
      name: patch.name,
      description: patch.description ?? '',
      initial_prompt: patch.initial_prompt ?? null,
      updated_at: (options.now ?? (() => new Date()))().toISOString(),
    };
    await writeFileAtomically(currentFile, `${JSON.stringify(next, null, 2)}\n`);
    return {
      created: { id: next.id, taskspace: toTaskspace(next), current: true, file: currentFile },
      setAside: aside,
    };
  });
}

/** Makes taskspace `id` the current one; the one that was current waits in `taskspaces/`. */
export async function switchTaskspace(
  currentFile: string,
  id: string,
): Promise<{ current: TaskspaceEntry; setAside: string | null }> {
  if (!TASKSPACE_ID.test(id)) {
    throw new UserError(`"${id}" is not a taskspace id`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass an id as `firstlight taskspace list` shows it, e.g. task-3f2a9c1b7d40',
    });
  }
  return withFileLock(currentFile, async () => {
    const raw = readRaw(currentFile);
    const currentId = raw ? toTaskspace(raw).id : null;
    if (raw && currentId === id) {
      return {
        current: { id, taskspace: toTaskspace(raw), current: true, file: currentFile },
        setAside: null,
      };
    }
    const waiting = join(taskspacesDir(currentFile), `${id}.json`);
    const target = readRaw(waiting);
    if (target === null) {
      const known = listTaskspaces(currentFile).map((e) => e.id);
      throw new NotFoundError(
        `no taskspace with id ${id}`,
        `use one of: ${known.join(', ') || '(none yet: firstlight taskspace new NAME)'}`,
      );
    }
    const aside = await setAside(currentFile, raw);
    await writeFileAtomically(currentFile, `${JSON.stringify({ ...target, id }, null, 2)}\n`);
    rmSync(waiting, { force: true });
    return {
      current: { id, taskspace: toTaskspace({ ...target, id }), current: true, file: currentFile },
      setAside: aside,
    };
  });
}
