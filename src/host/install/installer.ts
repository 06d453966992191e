/**
 * Install and uninstall: the plan (plan.ts: which file changes, pure) carried out by one
 * executor that dry-runs, diffs, backs up, writes and records in the manifest. Uninstall is
 * the inverse plan: a file that still holds exactly what install wrote gets its old bytes back;
 * otherwise only firstlight's parts come out.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readTextIfExists, writeFileAtomicallySync } from '../../core/index.js';
import { adapterFor } from '../adapters/index.js';
import { BLOCK_BODY } from '../bootstrap-block.js';
import type { HostId, Scope } from '../ids.js';
import type { InstallContext } from '../types.js';
import { unifiedDiff } from './diff.js';
import { backupSlot, lockedManifest, missingDirs, removeEmptyDirs } from './housekeeping.js';
import { type InstalledCommand, type Manifest, manifestPath } from './manifest.js';
import {
  type FileAction,
  type FileChange,
  type PlannedFile,
  planFiles,
  planInstallFile,
  planUninstallFile,
} from './plan.js';

export type { FileAction } from './plan.js';
export { planFiles } from './plan.js';

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

/** A project's manifest stores its paths relative to the project; a user manifest keeps them absolute. */
function manifestBase(scope: Scope, ctx: InstallContext): string | undefined {
  return scope === 'project' ? ctx.project : undefined;
}

/** A project without a .gitignore gets none: that planned file is not reported at all. */
function onlyIgnoreLines(file: PlannedFile): boolean {
  return file.surfaces.every((s) => s.surface.kind === 'ignore-line');
}

function display(path: string, project: string): string {
  const rel = relative(project, path);
  return rel.startsWith('..') || rel === '' ? path : rel;
}

/**
 * The one executor: reports each change with its diff and, unless this is a dry run, backs up
 * a corrupt file, writes or deletes, and records the change in the manifest. Returns the
 * reports and the directories uninstall may prune.
 */
function execute(
  changes: FileChange[],
  manifest: Manifest,
  options: { dryRun: boolean; project: string },
): { reports: FileReport[]; pruneDirs: string[] } {
  const pruneDirs: string[] = [];
  const reports = changes.map((change): FileReport => {
    const shown = display(change.path, options.project);
    const notes = [...change.notes];
    const changed = change.after !== change.before;
    const report: FileReport = {
      path: change.path,
      display: shown,
      action: change.action,
      hosts: change.hosts,
      labels: change.labels,
      notes,
      ...(changed ? { diff: unifiedDiff(shown, change.before, change.after) } : {}),
    };
    if (options.dryRun) {
      if (change.corrupt) {
        const slot = backupSlot(change.path);
        notes.push(
          `is not valid (${change.corrupt}): install would ${slot.holds ? 'keep the backup' : 'back it up to'} ${slot.path} and replace it`,
        );
      }
      return report;
    }
    let backup: string | undefined;
    if (change.corrupt) {
      const slot = backupSlot(change.path);
      backup = slot.path;
      if (!slot.holds) copyFileSync(change.path, backup);
      notes.push(
        slot.holds
          ? `was not valid (${change.corrupt}): these bytes were already backed up to ${backup}; replaced with a fresh config`
          : `was not valid (${change.corrupt}): backed up to ${backup} and replaced with a fresh config`,
      );
    }
    if (changed) {
      if (change.after === undefined) {
        rmSync(change.path, { force: true });
      } else {
        mkdirSync(dirname(change.path), { recursive: true });
        writeFileAtomicallySync(change.path, change.after);
      }
    }
    record(manifest, change, backup, pruneDirs);
    return report;
  });
  return { reports, pruneDirs };
}

function record(
  manifest: Manifest,
  change: FileChange,
  backup: string | undefined,
  pruneDirs: string[],
): void {
  const update = change.manifest;
  switch (update.kind) {
    case 'set':
      manifest.files[change.path] = { ...update.entry, ...(backup ? { backup } : {}) };
      break;
    case 'hosts': {
      const entry = manifest.files[change.path];
      if (entry) entry.hosts = update.hosts;
      break;
    }
    case 'forget':
      delete manifest.files[change.path];
      pruneDirs.push(...update.createdDirs);
      break;
    case 'none':
      break;
  }
}

export async function install(options: InstallOptions): Promise<InstallReport> {
  const { ctx, scope } = options;
  const dryRun = options.dryRun ?? false;
  const mPath = manifestPath(scope, ctx.project, options.home);
  const files = await lockedManifest(
    mPath,
    dryRun,
    (manifest) => {
      const changes = eachFile(options, (file, current) => {
        const change = planInstallFile(
          file,
          current,
          manifest.files[file.path],
          ctx.server.name,
          current === undefined ? missingDirs(file.path) : [],
        );
        if (namesThisMachine(file, options)) change.notes.push(MACHINE_PATHS_NOTE);
        return change;
      });
      const { reports } = execute(changes, manifest, { dryRun, project: ctx.project });
      if (!dryRun && Object.keys(manifest.files).length > 0) {
        manifest.hosts = [...new Set([...(manifest.hosts ?? []), ...options.hosts])];
        if (options.command) manifest.command = options.command;
      }
      return reports;
    },
    manifestBase(scope, ctx),
  );
  return {
    ...reportHead(options, mPath, files),
    manualSteps: options.hosts.map((host) => ({ host, steps: adapterFor(host).manualSteps(scope, ctx) })),
    ...(options.hosts.some((h) => adapterFor(h).caps.pasteBlock.includes(scope))
      ? { pasteBlock: BLOCK_BODY }
      : {}),
  };
}

const MACHINE_PATHS_NOTE =
  "names this machine's node and firstlight paths (or --home): keep it out of commits, or put `firstlight` on PATH (npm install -g firstlight) and re-run install";

/**
 * A project file a team may commit whose commands name a path of this machine: an MCP config,
 * or hooks of a host with no uncommitted local settings file.
 */
function namesThisMachine(file: PlannedFile, options: InstallOptions): boolean {
  if (options.scope !== 'project' || options.ctx.portable) return false;
  return file.surfaces.some(({ surface: s }) =>
    s.kind === 'mcp-json' || s.kind === 'mcp-toml'
      ? true
      : s.kind === 'hooks' && s.entries.length > 0 && !s.local,
  );
}

/**
 * The change `plan` makes to each file the hosts' surfaces name, given its current text; a
 * missing file that would hold only ignore lines is left alone.
 */
function eachFile(
  options: InstallOptions,
  plan: (file: PlannedFile, current: string | undefined) => FileChange,
): FileChange[] {
  return planFiles(options.hosts, options.scope, options.ctx).flatMap((file) => {
    const current = readTextIfExists(file.path);
    if (current === undefined && onlyIgnoreLines(file)) return [];
    return [plan(file, current)];
  });
}

/** What every install and uninstall report opens with. */
function reportHead(options: InstallOptions, manifest: string, files: FileReport[]) {
  return {
    hosts: options.hosts,
    scope: options.scope,
    project: options.ctx.project,
    dryRun: options.dryRun ?? false,
    manifest,
    files,
  };
}

export async function uninstall(options: InstallOptions): Promise<InstallReport> {
  const { ctx, scope } = options;
  const dryRun = options.dryRun ?? false;
  const mPath = manifestPath(scope, ctx.project, options.home);
  let pruneDirs: string[] = [];
  const files = await lockedManifest(
    mPath,
    dryRun,
    (manifest) => {
      const changes = eachFile(options, (file, current) =>
        planUninstallFile(file, current, manifest.files[file.path], ctx.server.name),
      );
      const done = execute(changes, manifest, { dryRun, project: ctx.project });
      pruneDirs = done.pruneDirs;
      if (!dryRun) manifest.hosts = (manifest.hosts ?? []).filter((h) => !options.hosts.includes(h));
      return done.reports;
    },
    manifestBase(scope, ctx),
  );
  // Several files may share one directory install created: prune after all, deepest first.
  removeEmptyDirs([...new Set(pruneDirs)].sort((a, b) => b.length - a.length));
  return { ...reportHead(options, mPath, files), manualSteps: [] };
}
