/**
 * `firstlight memory edit`: the editor works on a copy in a temp directory (named like the
 * memory, so editors pick markdown); the copy is checked and saved only when it validates and
 * the memory did not change meanwhile. A refused edit leaves the original as it was and keeps
 * the copy, whose path the error gives.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath, isFirstlightError, SystemError, UserError } from '../../core/index.js';
import {
  MemoryStore,
  memoryFileFor,
  readMemoryText,
  type SaveEditResult,
  saveEditedMemory,
} from '../../mind/index.js';
import { memoryNames, withNameSuggestions } from './memory-names.js';

export async function editMemory(home: string, name: string): Promise<SaveEditResult> {
  const memoryDir = join(home, 'memory');
  const store = new MemoryStore(memoryDir, { cacheFile: join(home, 'cache', 'memory-entries.json') });
  const file = await withNameSuggestions(
    name,
    () => memoryNames(store.snapshot().entries),
    () => memoryFileFor(memoryDir, store, name),
  );
  const editor = chooseEditor(process.env, Boolean(process.stdin.isTTY && process.stdout.isTTY));
  const original = readMemoryText(memoryDir, file) ?? '';
  const dir = mkdtempSync(join(tmpdir(), 'firstlight-edit-'));
  const copy = join(dir, file);
  writeFileSync(copy, original);
  // Through a shell, as git runs its editor: $EDITOR may carry arguments ("code --wait").
  const run = spawnSync(`${editor} "${copy}"`, { shell: true, stdio: 'inherit' });
  if (run.error || run.status !== 0) {
    // A copy the editor did not change holds nothing of the user's: no leftover in /tmp (issue 38).
    const changed = readIfThere(copy) !== original;
    if (!changed) rmSync(dir, { recursive: true, force: true });
    throw new SystemError(
      `the editor (${editor}) ${run.error ? `could not start: ${run.error.message}` : `exited with ${run.status ?? run.signal}`}; memory/${file} is unchanged`,
      {
        code: 'EDITOR_FAILED',
        hint: `${changed ? `your edited copy is kept at ${copy}; ` : ''}check $VISUAL / $EDITOR`,
      },
    );
  }
  const edited = readFileSync(copy, 'utf8');
  try {
    const result = await saveEditedMemory(home, file, original, edited, { store });
    rmSync(dir, { recursive: true, force: true });
    return result;
  } catch (error) {
    if (!isFirstlightError(error) || !(error instanceof UserError)) throw error;
    throw new UserError(`not saved: ${error.message}; memory/${file} is unchanged`, {
      code: error.code,
      hint: `${error.hint ?? 'fix it'}; your edited copy is kept at ${copy}`,
      cause: error,
    });
  }
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Editors tried, in order, when $VISUAL and $EDITOR are unset: Debian's default, then two common ones. */
export const FALLBACK_EDITORS = ['editor', 'nano', 'vi'] as const;

/**
 * The editor to run: $VISUAL, else $EDITOR (either may carry arguments: "code --wait"), else, on
 * a terminal, the first of FALLBACK_EDITORS on PATH (said on stderr, so the choice is no
 * surprise); else the error that says how to set one. Without a terminal a fallback (vi, nano)
 * would only print escape codes and fail, so none is tried (issue 38).
 */
export function chooseEditor(env: NodeJS.ProcessEnv, terminal: boolean): string {
  const set = env.VISUAL?.trim() || env.EDITOR?.trim();
  if (set) return set;
  if (!terminal) {
    throw new UserError(
      `no editor: $VISUAL and $EDITOR are unset, and with no terminal none of ${FALLBACK_EDITORS.join(', ')} can run`,
      {
        code: 'EDITOR_UNSET',
        hint: 'set one for this command, e.g. EDITOR=nano firstlight memory edit NAME in a terminal, or an editor that needs none: EDITOR="code --wait"',
      },
    );
  }
  for (const name of FALLBACK_EDITORS) {
    const found = findOnPath(name, env);
    if (found) {
      process.stderr.write(
        `firstlight: $VISUAL and $EDITOR are unset: editing with ${name} (set EDITOR to choose)\n`,
      );
      return name;
    }
  }
  throw new UserError(
    `no editor: $VISUAL and $EDITOR are unset and none of ${FALLBACK_EDITORS.join(', ')} is on PATH`,
    {
      code: 'EDITOR_UNSET',
      hint: 'set one for this command, e.g. EDITOR=nano firstlight memory edit NAME, or in your shell profile: export EDITOR="code --wait"',
    },
  );
}
