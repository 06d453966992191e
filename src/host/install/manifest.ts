/**
 * What install did, so uninstall can reverse exactly that: per file, its bytes before the first
 * install (null when install created it), a hash of what install last wrote, the hosts that
 * wrote into it, and the directories install created for it.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
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
  /** The REPL harness was registered beside the mind (`--with-repl`). */
  withRepl?: boolean;
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

/**
 * Reads a manifest with every path absolute. A project's manifest stores the paths inside the
 * project relative to it (`base`), so a moved or cloned project keeps a manifest that fits.
 */
export function readManifest(path: string, base?: string): Manifest {
  const text = readStateFile(path);
  if (text === undefined) return { version: 1, files: {} };
  try {
    const parsed = JSON.parse(text) as Manifest;
    if (parsed && parsed.version === 1 && typeof parsed.files === 'object')
      return base ? mapPaths(parsed, (p) => (isAbsolute(p) ? p : resolve(base, p))) : parsed;
  } catch {
    // fall through: an unreadable manifest is treated as empty (uninstall then removes our parts semantically)
  }
  return { version: 1, files: {} };
}

/** The manifest's text, paths inside `base` written relative to it (see readManifest). */
export function manifestText(manifest: Manifest, base?: string): string {
  const inside = (p: string) => {
    const rel = relative(base ?? '', p);
    return base && rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)
      ? rel.split(sep).join('/')
      : p;
  };
  return `${JSON.stringify(base ? mapPaths(manifest, inside) : manifest, null, 2)}\n`;
}

function mapPaths(manifest: Manifest, map: (path: string) => string): Manifest {
  const files: Record<string, ManifestEntry> = {};
  for (const [path, entry] of Object.entries(manifest.files)) {
    files[map(path)] = {
      ...entry,
      createdDirs: entry.createdDirs.map(map),
      ...(entry.backup ? { backup: map(entry.backup) } : {}),
    };
  }
  return { ...manifest, files };
}
