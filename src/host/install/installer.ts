/**
 * Install and uninstall: plan every surface of the chosen hosts, group them by file, apply the
 * pure edits, and record what was done in the manifest. Uninstall restores a file byte for byte
 * when it still holds exactly what install wrote; otherwise it removes only firstlight's parts.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readTextIfExists, writeFileAtomicallySync } from '../../core/index.js';
import { adapterFor } from '../adapters/index.js';
import { BLOCK_BODY } from '../bootstrap-block.js';
import type { HostId, Scope } from '../ids.js';
import type { InstallContext, Surface } from '../types.js';
import { unifiedDiff } from './diff.js';
import { backupSlot, lockedManifest, missingDirs, removeEmptyDirs } from './housekeeping.js';
import { type InstalledCommand, manifestPath, sha256 } from './manifest.js';
import { applySurface, unapplySurface } from './surface-edit.js';

export interface InstallOptions {
  hosts: HostId[];
  scope: Scope;
  ctx: InstallContext;
  /** The firstlight home (user-scope manifest lives there). */
  home: string;
  dryRun?: boolean;
  /** Recorded in the manifest so doctor can rebuild the same commands. */
  command?: InstalledCommand;
}

export type FileAction = 'created' | 'updated' | 'unchanged' | 'restored' | 'removed' | 'cleaned' | 'kept';

export interface FileReport {
  path: string;
  /** Path relative to the project when inside it. */
  display: string;
  action: FileAction;
  hosts: HostId[];
  labels: string[];
  notes: string[];
  diff?: string;
}

export interface InstallReport {
  hosts: HostId[];
  scope: Scope;
  project: string;
  dryRun: boolean;
  manifest: string;
  files: FileReport[];
  manualSteps: { host: HostId; steps: string[] }[];
  /** The bootstrap block's text when some host has a surface without a file (the user pastes it). */
  pasteBlock?: string;
}

interface PlannedFile {
  path: string;
  surfaces: { host: HostId; surface: Surface }[];
}

/** Surfaces of the chosen hosts grouped by file, in first-seen order. */
export function planFiles(hosts: HostId[], scope: Scope, ctx: InstallContext): PlannedFile[] {
  const byPath = new Map<string, PlannedFile>();
  for (const host of hosts) {
    for (const surface of adapterFor(host).surfaces(scope, ctx)) {
      if (surface.kind === 'mcp-json' && surface.readOnly) continue;
      const file = byPath.get(surface.path) ?? { path: surface.path, surfaces: [] };
      file.surfaces.push({ host, surface });
      byPath.set(surface.path, file);
    }
  }
  return [...byPath.values()];
}

function display(path: string, project: string): string {
  const rel = relative(project, path);
  return rel.startsWith('..') || rel === '' ? path : rel;
}

export async function install(options: InstallOptions): Promise<InstallReport> {
  const { ctx, scope } = options;
  const dryRun = options.dryRun ?? false;
  const mPath = manifestPath(scope, ctx.project, options.home);
  const files = await lockedManifest(mPath, dryRun, (manifest) => {
    const reports = planFiles(options.hosts, scope, ctx).map((file): FileReport => {
      const current = readTextIfExists(file.path);
      let next = current;
      const notes: string[] = [];
      let corrupt: string | undefined;
      for (const { surface } of file.surfaces) {
        const edit = applySurface(next, surface, ctx.server.name);
        next = edit.text;
        notes.push(...edit.notes);
        corrupt ??= edit.corrupt;
      }
      const hosts = [...new Set(file.surfaces.map((s) => s.host))];
      const base = {
        path: file.path,
        display: display(file.path, ctx.project),
        hosts,
        labels: [...new Set(file.surfaces.map((s) => s.surface.label))],
        notes,
      };
      const entry = manifest.files[file.path];
      if (next === current) {
        if (entry) entry.hosts = [...new Set([...entry.hosts, ...hosts])];
        return { ...base, action: 'unchanged' };
      }
      const diff = unifiedDiff(base.display, current, next);
      if (!dryRun) {
        const createdDirs = current === undefined ? missingDirs(file.path) : [];
        let backup: string | undefined;
        if (corrupt && current !== undefined) {
          const slot = backupSlot(file.path);
          backup = slot.path;
          if (!slot.holds) copyFileSync(file.path, backup);
          notes.push(
            slot.holds
              ? `was not valid (${corrupt}): these bytes were already backed up to ${backup}; replaced with a fresh config`
              : `was not valid (${corrupt}): backed up to ${backup} and replaced with a fresh config`,
          );
        }
        mkdirSync(dirname(file.path), { recursive: true });
        writeFileAtomicallySync(file.path, next!);
        manifest.files[file.path] = entry
          ? { ...entry, writtenSha256: sha256(next!), hosts: [...new Set([...entry.hosts, ...hosts])] }
          : {
              original: current ?? null,
              writtenSha256: sha256(next!),
              hosts,
              createdDirs,
              ...(backup ? { backup } : {}),
            };
      } else if (corrupt && current !== undefined) {
        const slot = backupSlot(file.path);
        notes.push(
          `is not valid (${corrupt}): install would ${slot.holds ? 'keep the backup' : 'back it up to'} ${slot.path} and replace it`,
        );
      }
      return { ...base, action: current === undefined ? 'created' : 'updated', diff };
    });
    if (Object.keys(manifest.files).length > 0) {
      manifest.hosts = [...new Set([...(manifest.hosts ?? []), ...options.hosts])];
      if (options.command) manifest.command = options.command;
    }
    return reports;
  });
  return {
    hosts: options.hosts,
    scope,
    project: ctx.project,
    dryRun,
    manifest: mPath,
    files,
    manualSteps: options.hosts.map((host) => ({ host, steps: adapterFor(host).manualSteps(scope, ctx) })),
    ...(options.hosts.some((h) => adapterFor(h).caps.pasteBlock.includes(scope))
      ? { pasteBlock: BLOCK_BODY }
      : {}),
  };
}

export async function uninstall(options: InstallOptions): Promise<InstallReport> {
  const { ctx, scope } = options;
  const dryRun = options.dryRun ?? false;
  const mPath = manifestPath(scope, ctx.project, options.home);
  // Directories install created; pruned (when empty) after every file is handled, deepest first,
  // because several files may share one new directory.
  const createdDirs = new Set<string>();
  const files = await lockedManifest(mPath, dryRun, (manifest) => {
    const reports = planFiles(options.hosts, scope, ctx).map((file): FileReport => {
      const hosts = [...new Set(file.surfaces.map((s) => s.host))];
      const base = {
        path: file.path,
        display: display(file.path, ctx.project),
        hosts,
        labels: [...new Set(file.surfaces.map((s) => s.surface.label))],
        notes: [] as string[],
      };
      const current = readTextIfExists(file.path);
      const entry = manifest.files[file.path];
      if (entry) {
        const remaining = entry.hosts.filter((h) => !hosts.includes(h));
        if (remaining.length > 0) {
          if (!dryRun) entry.hosts = remaining;
          base.notes.push(`still used by ${remaining.join(', ')}: left in place`);
          return { ...base, action: 'kept' };
        }
        if (!dryRun) {
          delete manifest.files[file.path];
          for (const dir of entry.createdDirs) createdDirs.add(dir);
        }
        if (current !== undefined && sha256(current) === entry.writtenSha256) {
          const diff = unifiedDiff(base.display, current, entry.original ?? undefined);
          if (!dryRun) {
            if (entry.original === null) {
              rmSync(file.path, { force: true });
            } else {
              writeFileAtomicallySync(file.path, entry.original);
            }
          }
          return { ...base, action: entry.original === null ? 'removed' : 'restored', diff };
        }
        if (current === undefined) return { ...base, action: 'unchanged' };
        base.notes.push('changed since install: removed firstlight’s parts only');
        return clean(file, current, entry.original === null, base, dryRun, ctx.server.name);
      }
      if (current === undefined) return { ...base, action: 'unchanged' };
      return clean(file, current, false, base, dryRun, ctx.server.name);
    });
    if (!dryRun) manifest.hosts = (manifest.hosts ?? []).filter((h) => !options.hosts.includes(h));
    return reports;
  });
  removeEmptyDirs([...createdDirs].sort((a, b) => b.length - a.length));
  return {
    hosts: options.hosts,
    scope,
    project: ctx.project,
    dryRun,
    manifest: mPath,
    files,
    manualSteps: [],
  };
}

/** Semantic removal: every surface's parts out, the rest of the file as it is. */
function clean(
  file: PlannedFile,
  current: string,
  created: boolean,
  base: Omit<FileReport, 'action'>,
  dryRun: boolean,
  serverName: string,
): FileReport {
  let next = current;
  for (const { surface } of file.surfaces) next = unapplySurface(next, surface, serverName);
  if (next === current) return { ...base, action: 'unchanged' };
  const remove = created && next.trim() === '';
  const diff = unifiedDiff(base.display, current, remove ? undefined : next);
  if (!dryRun) {
    if (remove) {
      rmSync(file.path, { force: true });
    } else {
      writeFileAtomicallySync(file.path, next);
    }
  }
  return { ...base, action: remove ? 'removed' : 'cleaned', diff };
}
