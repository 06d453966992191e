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
import { isFirstlightError, SystemError, UserError } from '../../core/index.js';
import { MemoryStore, memoryFileFor, type SaveEditResult, saveEditedMemory } from '../../mind/index.js';

export async function editMemory(home: string, name: string): Promise<SaveEditResult> {
  const memoryDir = join(home, 'memory');
  const store = new MemoryStore(memoryDir, { cacheFile: join(home, 'cache', 'memory-entries.json') });
  const file = memoryFileFor(memoryDir, store, name);
  const editor = process.env.VISUAL?.trim() || process.env.EDITOR?.trim();
  if (!editor) {
    throw new UserError('no editor: $VISUAL and $EDITOR are both unset', {
      code: 'EDITOR_UNSET',
      hint: 'set one, e.g. EDITOR=nano firstlight memory edit NAME (or export EDITOR="code --wait")',
    });
  }
  const original = readFileSync(join(memoryDir, file), 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'firstlight-edit-'));
  const copy = join(dir, file);
  writeFileSync(copy, original);
  // Through a shell, as git runs its editor: $EDITOR may carry arguments ("code --wait").
  const run = spawnSync(`${editor} "${copy}"`, { shell: true, stdio: 'inherit' });
  if (run.error || run.status !== 0) {
    throw new SystemError(
      `the editor (${editor}) ${run.error ? `could not start: ${run.error.message}` : `exited with ${run.status ?? run.signal}`}; memory/${file} is unchanged`,
      { code: 'EDITOR_FAILED', hint: `your copy is at ${copy}; check $VISUAL / $EDITOR` },
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
