/**
 * `firstlight status`: which hosts the install manifests say are set up, per scope, and whether
 * the server command they were given can start: quick checks that spawn nothing by default
 * (the command resolves to an executable, the CLI script it names exists), or with `probe` an
 * MCP handshake (initialize, then tools/list) that calls no tool and so records nothing.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { findOnPath, isExecutableFile } from '../core/index.js';
import type { HostId, Scope } from './ids.js';
import { resolveCommands } from './install/command.js';
import { manifestPath, readManifest } from './install/manifest.js';

export interface InstalledScope {
  scope: Scope;
  /** Where the manifest is. */
  manifest: string;
  hosts: HostId[];
  /** The server command hosts were configured with; absent for a manifest without one. */
  server?: { command: string; args: string[] };
  /** Whether that command can start. */
  reachable?: { ok: boolean; detail: string };
}

export interface InstallStatusOptions {
  project: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Also start the server and complete an MCP handshake (slower; still writes nothing). */
  probe?: (server: { command: string; args: string[] }) => Promise<{ ok: boolean; detail: string }>;
}

export async function installStatus(options: InstallStatusOptions): Promise<InstalledScope[]> {
  const out: InstalledScope[] = [];
  for (const scope of ['project', 'user'] as const) {
    const path = manifestPath(scope, options.project, options.home);
    const manifest = readManifest(path);
    const hosts = manifest.hosts ?? [];
    if (hosts.length === 0) continue;
    const entry: InstalledScope = { scope, manifest: path, hosts };
    if (manifest.command) {
      const { server } = resolveCommands({ ...manifest.command, env: options.env });
      entry.server = { command: server.command, args: server.args };
      const quick = commandResolves(entry.server, options.env);
      entry.reachable = quick.ok && options.probe ? await options.probe(entry.server) : quick;
    }
    out.push(entry);
  }
  return out;
}

/** The command is an executable (a path, or a name on PATH) and a script it is given exists. */
export function commandResolves(
  server: { command: string; args: string[] },
  env: NodeJS.ProcessEnv,
): { ok: boolean; detail: string } {
  const found = isAbsolute(server.command)
    ? isExecutableFile(server.command)
      ? server.command
      : undefined
    : findOnPath(server.command, env);
  if (!found)
    return {
      ok: false,
      detail: `\`${server.command}\` is not an executable here (not found or not on PATH)`,
    };
  const script = server.args.find((a) => /\.(c|m)?js$/.test(a));
  if (script && !isFile(script)) return { ok: false, detail: `the CLI script ${script} is missing` };
  return { ok: true, detail: `\`${[server.command, ...server.args].join(' ')}\` resolves` };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
