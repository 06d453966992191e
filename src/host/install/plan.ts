/**
 * Install and uninstall as plans: given the surfaces of the chosen hosts, each file's current
 * text and the manifest, the list of file changes to make. Pure: nothing here reads or writes
 * a file; the executor (installer.ts) dry-runs, diffs, backs up, writes and records them.
 */
import { join } from 'node:path';
import { adapterFor } from '../adapters/index.js';
import type { HostId, Scope } from '../ids.js';
import type { InstallContext, Surface } from '../types.js';

/** The per-project state directory (as the guidance part names it). */
const PROJECT_STATE_DIR = '.firstlight';

import { isHooksCleanup } from './hooks-config.js';
import { type ManifestEntry, sha256 } from './manifest.js';
import { applySurface, unapplySurface } from './surface-edit.js';

export type FileAction = 'created' | 'updated' | 'unchanged' | 'restored' | 'removed' | 'cleaned' | 'kept';

/** The surfaces of the chosen hosts that land in one file. */
export interface PlannedFile {
  path: string;
  surfaces: { host: HostId; surface: Surface }[];
}

/** What the manifest should say about a file once the change is made. */
export type ManifestUpdate =
  /** A fresh entry (the first install into this file), or the existing one with a new hash and hosts. */
  | { kind: 'set'; entry: ManifestEntry }
  /** Only the hosts change (nothing written). */
  | { kind: 'hosts'; hosts: HostId[] }
  /** Uninstall is done with the file: forget it (and prune the directories install made). */
  | { kind: 'forget'; createdDirs: string[] }
  | { kind: 'none' };

/** One file's change: its text before and after (undefined: no file) and what to record. */
export interface FileChange {
  path: string;
  hosts: HostId[];
  labels: string[];
  notes: string[];
  action: FileAction;
  before: string | undefined;
  after: string | undefined;
  /** The current file does not parse: its bytes are backed up before it is replaced. */
  corrupt?: string;
  manifest: ManifestUpdate;
}

/**
 * A host's surfaces for this scope; with `ctx.repl` every MCP config also gets the REPL
 * harness, in the host's own entry shape (the adapter describes it as it does the mind).
 */
export function hostSurfaces(host: HostId, scope: Scope, ctx: InstallContext): Surface[] {
  const adapter = adapterFor(host);
  const surfaces = adapter.surfaces(scope, ctx);
  if (!ctx.repl) return surfaces;
  const replSurfaces = adapter.surfaces(scope, { ...ctx, server: ctx.repl });
  const replName = ctx.repl.name;
  return surfaces.map((surface, i) => {
    const twin = replSurfaces[i];
    if ((surface.kind === 'mcp-json' || surface.kind === 'mcp-toml') && twin?.kind === surface.kind)
      return { ...surface, more: { [replName]: twin.entry } };
    return surface;
  });
}

/** Surfaces of the chosen hosts grouped by file, in first-seen order. */
export function planFiles(hosts: HostId[], scope: Scope, ctx: InstallContext): PlannedFile[] {
  const byPath = new Map<string, PlannedFile>();
  for (const host of hosts) {
    for (const surface of hostSurfaces(host, scope, ctx)) {
      if (surface.kind === 'mcp-json' && surface.readOnly) continue;
      const file = byPath.get(surface.path) ?? { path: surface.path, surfaces: [] };
      file.surfaces.push({ host, surface });
      byPath.set(surface.path, file);
    }
    if (scope === 'project') {
      // A project that keeps a .gitignore does not commit firstlight's per-project state.
      const path = join(ctx.project, '.gitignore');
      const file = byPath.get(path) ?? { path, surfaces: [] };
      file.surfaces.push({
        host,
        surface: {
          kind: 'ignore-line',
          path,
          line: `${PROJECT_STATE_DIR}/`,
          label: `ignores ${PROJECT_STATE_DIR}/`,
        },
      });
      byPath.set(path, file);
    }
  }
  return [...byPath.values()];
}

const hostsOf = (file: PlannedFile): HostId[] => [...new Set(file.surfaces.map((s) => s.host))];
const labelsOf = (file: PlannedFile): string[] => [...new Set(file.surfaces.map((s) => s.surface.label))];
const union = (a: HostId[], b: HostId[]): HostId[] => [...new Set([...a, ...b])];

/**
 * The change that installs every surface of `file`. `current` is its text (undefined: absent),
 * `entry` what the manifest holds for it, `createdDirs` the directories a write would create.
 */
export function planInstallFile(
  file: PlannedFile,
  current: string | undefined,
  entry: ManifestEntry | undefined,
  serverName: string,
  createdDirs: string[],
): FileChange {
  let after = current;
  const notes: string[] = [];
  let corrupt: string | undefined;
  for (const { surface } of file.surfaces) {
    // .gitignore is edited only where the project already has one; a hooks file that should
    // hold none of ours (they went to the local settings file) is only cleaned, never created.
    if (after === undefined && (surface.kind === 'ignore-line' || isHooksCleanup(surface))) continue;
    const edit = applySurface(after, surface, serverName);
    after = edit.text;
    notes.push(...edit.notes);
    corrupt ??= edit.corrupt;
  }
  const hosts = hostsOf(file);
  const base = { path: file.path, hosts, labels: labelsOf(file), notes, before: current };
  if (after === current) {
    return {
      ...base,
      after,
      action: 'unchanged',
      manifest: entry ? { kind: 'hosts', hosts: union(entry.hosts, hosts) } : { kind: 'none' },
    };
  }
  const written = sha256(after!);
  return {
    ...base,
    after,
    action: current === undefined ? 'created' : 'updated',
    ...(corrupt && current !== undefined ? { corrupt } : {}),
    manifest: {
      kind: 'set',
      entry: entry
        ? { ...entry, writtenSha256: written, hosts: union(entry.hosts, hosts) }
        : { original: current ?? null, writtenSha256: written, hosts, createdDirs },
    },
  };
}

/**
 * The change that takes `file`'s surfaces out again: restore the bytes from before the first
 * install when the file still holds exactly what install wrote, else remove only firstlight's
 * parts; a file another installed host still uses stays.
 */
export function planUninstallFile(
  file: PlannedFile,
  current: string | undefined,
  entry: ManifestEntry | undefined,
  serverName: string,
): FileChange {
  const hosts = hostsOf(file);
  const base = { path: file.path, hosts, labels: labelsOf(file), before: current };
  const unchanged = (notes: string[], manifest: ManifestUpdate): FileChange => ({
    ...base,
    notes,
    after: current,
    action: 'unchanged',
    manifest,
  });
  if (entry) {
    const remaining = entry.hosts.filter((h) => !hosts.includes(h));
    if (remaining.length > 0) {
      return {
        ...base,
        notes: [`still used by ${remaining.join(', ')}: left in place`],
        after: current,
        action: 'kept',
        manifest: { kind: 'hosts', hosts: remaining },
      };
    }
    const forget: ManifestUpdate = { kind: 'forget', createdDirs: entry.createdDirs };
    if (current === undefined) return unchanged([], forget);
    if (sha256(current) === entry.writtenSha256) {
      return {
        ...base,
        notes: [],
        after: entry.original ?? undefined,
        action: entry.original === null ? 'removed' : 'restored',
        manifest: forget,
      };
    }
    return clean(file, current, serverName, entry.original === null, base, forget, [
      'changed since install: removed firstlight’s parts only',
    ]);
  }
  if (current === undefined) return unchanged([], { kind: 'none' });
  // Without a record, a .gitignore line is the user's own: only what install added comes out.
  const ours = { ...file, surfaces: file.surfaces.filter((s) => s.surface.kind !== 'ignore-line') };
  return clean(ours, current, serverName, false, base, { kind: 'none' }, []);
}

/** Semantic removal: every surface's parts out, the rest of the file as it is. */
function clean(
  file: PlannedFile,
  current: string,
  serverName: string,
  created: boolean,
  base: Pick<FileChange, 'path' | 'hosts' | 'labels' | 'before'>,
  manifest: ManifestUpdate,
  notes: string[],
): FileChange {
  let next = current;
  for (const { surface } of file.surfaces) next = unapplySurface(next, surface, serverName);
  if (next === current) return { ...base, notes, after: current, action: 'unchanged', manifest };
  const remove = created && next.trim() === '';
  return {
    ...base,
    notes,
    after: remove ? undefined : next,
    action: remove ? 'removed' : 'cleaned',
    manifest,
  };
}
