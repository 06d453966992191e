/** The install plan is pure: texts and the manifest in, file changes out, nothing touched. */
import { describe, expect, it } from 'vitest';
import type { ManifestEntry } from '../../../src/host/install/manifest.js';
import type { FileChange } from '../../../src/host/install/plan.js';
import { planFiles, planInstallFile, planUninstallFile } from '../../../src/host/install/plan.js';
import type { InstallContext } from '../../../src/host/types.js';

/** The manifest entry a change records (fails the test when it records none). */
function entryOf(change: FileChange): ManifestEntry {
  if (change.manifest.kind !== 'set')
    throw new Error(`expected a manifest entry, got ${change.manifest.kind}`);
  return change.manifest.entry;
}

const ctx: InstallContext = {
  project: '/p',
  userHome: '/u',
  env: {},
  platform: 'linux',
  server: { name: 'firstlight', command: 'firstlight', args: ['serve'] },
  hookArgv: (event, host) => ['firstlight', 'hook', event, ...(host ? ['--host', host] : [])],
  portable: true,
};

describe('install plan', () => {
  const [mcp] = planFiles(['claude', 'cursor'], 'project', ctx).filter((f) => f.path === '/p/.mcp.json');
  const agents = planFiles(['claude', 'cursor'], 'project', ctx).find((f) => f.path === '/p/AGENTS.md')!;

  it('groups the surfaces of several hosts by file, in first-seen order', () => {
    const paths = planFiles(['claude', 'cursor'], 'project', ctx).map((f) => f.path);
    expect(paths[0]).toBe('/p/CLAUDE.md');
    expect(agents.surfaces.map((s) => s.host)).toEqual(['claude', 'cursor']);
  });

  it('install: the change, the directories a write creates, and the manifest entry to record', () => {
    const before = '{"mcpServers":{}}\n';
    const change = planInstallFile(mcp!, before, undefined, 'firstlight', []);
    expect(change.action).toBe('updated');
    expect(JSON.parse(change.after!).mcpServers.firstlight.command).toBe('firstlight');
    expect(change.manifest).toMatchObject({ kind: 'set', entry: { original: before, hosts: ['claude'] } });
    // The same text again: nothing to do, and the manifest only learns the hosts.
    const again = planInstallFile(mcp!, change.after, entryOf(change), 'firstlight', []);
    expect(again.action).toBe('unchanged');
    expect(again.manifest).toEqual({ kind: 'hosts', hosts: ['claude'] });
  });

  it('a corrupt file is replaced and flagged for a backup', () => {
    const change = planInstallFile(mcp!, '{ not json', undefined, 'firstlight', []);
    expect(change.corrupt).toBeDefined();
    expect(change.action).toBe('updated');
  });

  it('uninstall is the inverse: the original back when untouched, only our parts when edited, kept while shared', () => {
    const before = '{"mcpServers":{"db":{"command":"db"}}}\n';
    const installed = planInstallFile(mcp!, before, undefined, 'firstlight', ['/p/x']);
    const entry = entryOf(installed);
    const restore = planUninstallFile(mcp!, installed.after, entry, 'firstlight');
    expect(restore).toMatchObject({
      action: 'restored',
      after: before,
      manifest: { kind: 'forget', createdDirs: ['/p/x'] },
    });

    const edited = installed.after!.replace('"db"}', '"db2"}');
    const cleaned = planUninstallFile(mcp!, edited, entry, 'firstlight');
    expect(cleaned.action).toBe('cleaned');
    expect(JSON.parse(cleaned.after!)).toEqual({ mcpServers: { db: { command: 'db2' } } });

    const shared = planUninstallFile(
      mcp!,
      installed.after,
      { ...entry, hosts: ['claude', 'vscode'] },
      'firstlight',
    );
    expect(shared).toMatchObject({
      action: 'kept',
      after: installed.after,
      manifest: { kind: 'hosts', hosts: ['vscode'] },
    });
  });
});
