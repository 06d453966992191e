/**
 * The installer's file housekeeping: backups of corrupt files, the directories a write creates
 * and removes again, and the manifest read and written under its cross-process lock.
 */
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock, writeStateFileSync } from '../../core/index.js';
import { type Manifest, readManifest } from './manifest.js';

/**
 * Where a corrupt file's bytes are kept: the first of `<file>.firstlight-backup`,
 * `….firstlight-backup.2`, … that is free or already holds exactly these bytes. An earlier
 * backup is never overwritten, so a second, different corrupt file is never lost.
 */
export function backupSlot(path: string): { path: string; holds: boolean } {
  const bytes = readFileSync(path);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${path}.firstlight-backup` : `${path}.firstlight-backup.${n}`;
    if (!existsSync(candidate)) return { path: candidate, holds: false };
    if (readFileSync(candidate).equals(bytes)) return { path: candidate, holds: true };
  }
}

/** Directories `mkdir -p` would create for `file`, outermost first. */
export function missingDirs(file: string): string[] {
  const dirs: string[] = [];
  let dir = dirname(file);
  while (!existsSync(dir)) {
    dirs.unshift(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dirs;
}

/** Runs `work` on the manifest and writes it back (removed when empty); read-only for a dry run. */
export async function lockedManifest<T>(path: string, dryRun: boolean, work: (m: Manifest) => T): Promise<T> {
  if (dryRun) return work(readManifest(path));
  const hadDir = existsSync(dirname(path));
  const result = await withFileLock(path, async () => {
    const manifest = readManifest(path);
    const value = work(manifest);
    if (Object.keys(manifest.files).length === 0) rmSync(path, { force: true });
    else writeStateFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
    return value;
  });
  // The manifest's directory goes when nothing is left in it (install made it; the lock too).
  if (!existsSync(path) && (!hadDir || readManifestDirEmpty(path))) removeEmptyDirs([dirname(path)]);
  return result;
}

function readManifestDirEmpty(path: string): boolean {
  try {
    return readdirSync(dirname(path)).length === 0;
  } catch {
    return false;
  }
}

/** Removes each directory if it is empty, innermost first as given. */
export function removeEmptyDirs(dirs: string[]): void {
  for (const dir of dirs) {
    try {
      if (readdirSync(dir).length === 0) rmdirSync(dir);
    } catch {
      // gone already, or not empty
    }
  }
}
