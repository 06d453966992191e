/**
 * What install did, so uninstall can reverse exactly that: per file, its bytes before the first
 * install (null when install created it), a hash of what install last wrote, the hosts that
 * wrote into it, and the directories install created for it.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readStateFile } from '../../core/index.js';
import type { HostId, Scope } from '../ids.js';

export interface ManifestEntry {
  original: string | null;
  writtenSha256: string;
  hosts: HostId[];
  createdDirs: string[];
  /** Where a corrupt original was backed up. */
  backup?: string;
}

/** How install resolved the server and hook commands; doctor rebuilds the same expectations from it. */
export interface InstalledCommand {
  cliPath: string;
  execPath: string;
  home?: string;
}

export interface Manifest {
  version: 1;
  files: Record<string, ManifestEntry>;
  /** Hosts installed at this scope. */
  hosts?: HostId[];
  command?: InstalledCommand;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Project installs keep it in the project; user installs in the firstlight home. */
export function manifestPath(scope: Scope, project: string, home: string): string {
  return scope === 'project'
    ? join(project, '.firstlight', 'install-manifest.json')
    : join(home, 'install-manifest.user.json');
}

export function readManifest(path: string): Manifest {
  const text = readStateFile(path);
  if (text === undefined) return { version: 1, files: {} };
  try {
    const parsed = JSON.parse(text) as Manifest;
    if (parsed && parsed.version === 1 && typeof parsed.files === 'object') return parsed;
  } catch {
    // fall through: an unreadable manifest is treated as empty (uninstall then removes our parts semantically)
  }
  return { version: 1, files: {} };
}
