/**
 * `firstlight doctor`: per installed host and scope, is each file there with our part current,
 * and does the configured server command actually answer `bootstrap_session`?
 */
import { join } from 'node:path';
import { describeLeftovers, findOnPath, readTextIfExists, sweepLeftovers } from '../core/index.js';
import { adapterFor } from './adapters/index.js';
import type { HostId, Scope } from './ids.js';
import { resolveCommands } from './install/command.js';
import { manifestPath, readManifest } from './install/manifest.js';
import { hostSurfaces } from './install/plan.js';
import { inspectSurface } from './install/surface-edit.js';
import { gateProof, gateSummary } from './report.js';
import type { InstallContext, Surface } from './types.js';

export type CheckName = 'config' | 'permissions' | 'instructions' | 'hooks' | 'trust' | 'server' | 'gate';

export interface DoctorCheck {
  check: CheckName;
  /** `config`, `instructions:CLAUDE.md`, `server`: unique within a host. */
  id: string;
  ok: boolean;
  detail: string;
  path?: string;
  /** Passes, but says something the user should know (a host with no gate). */
  info?: true;
  /** The `gate` check: what proves bootstrap on this host (its transcript, firstlight's record, or nothing). */
  proof?: 'transcript' | 'record' | 'none';
}

export interface HostDiagnosis {
  host: HostId;
  name: string;
  scope: Scope;
  ok: boolean;
  /**
   * The host's program is not on this machine (none of its commands on PATH): `install` says
   * how to get it. Its file checks are reported but do not fail doctor; its server check does.
   */
  skipped?: { reason: string; install: string };
  checks: DoctorCheck[];
}

export interface DoctorReport {
  project: string;
  ok: boolean;
  hosts: HostDiagnosis[];
  /** Set when nothing is installed at all. */
  note?: string;
  /** What a crash left in the home or the project's .firstlight/ (temp files, stale locks), removed by this run. */
  swept?: string;
}

export interface ProbeResult {
  ok: boolean;
  detail: string;
}

export interface DoctorOptions {
  project: string;
  home: string;
  userHome: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Starts the server command and calls bootstrap_session (the real one spawns it over stdio). */
  probe: (server: { command: string; args: string[] }) => Promise<ProbeResult>;
}

const CHECK_OF: Record<Surface['kind'], CheckName> = {
  instructions: 'instructions',
  'mcp-json': 'config',
  'mcp-toml': 'config',
  'json-list': 'permissions',
  hooks: 'hooks',
  'ignore-line': 'config',
};

export async function doctor(options: DoctorOptions): Promise<DoctorReport> {
  const hosts: HostDiagnosis[] = [];
  const leftovers = sweepLeftovers([options.home, join(options.project, '.firstlight')]);
  const swept = leftovers.length > 0 ? describeLeftovers(leftovers, options.home) : undefined;
  const probes = new Map<string, Promise<ProbeResult>>();
  for (const scope of ['project', 'user'] as const) {
    const manifest = readManifest(
      manifestPath(scope, options.project, options.home),
      scope === 'project' ? options.project : undefined,
    );
    const installed = manifest.hosts ?? [];
    if (installed.length === 0 || !manifest.command) continue;
    const commands = resolveCommands({ ...manifest.command, env: options.env });
    const ctx: InstallContext = {
      project: options.project,
      userHome: options.userHome,
      env: options.env,
      platform: options.platform,
      ...commands,
    };
    for (const host of installed) {
      const adapter = adapterFor(host);
      const checks: DoctorCheck[] = [];
      let server: { command: string; args: string[] } | undefined;
      for (const surface of hostSurfaces(host, scope, ctx)) {
        const seen = inspectSurface(readTextIfExists(surface.path), surface, ctx.server.name);
        const check = CHECK_OF[surface.kind];
        const shown = display(surface.path, options);
        const id =
          check === 'instructions' || (surface.kind === 'hooks' && surface.entries.length === 0)
            ? `${check}:${shown}`
            : check;
        const hint = surface.kind === 'mcp-json' && !seen.ok ? surface.readOnly?.hint : undefined;
        // Which file holds the hooks, and whether a team can commit it (the label says why).
        const where = surface.kind === 'hooks' && surface.entries.length > 0 && seen.ok;
        const detail = hint
          ? `${seen.detail} (${shown}): ${hint}`
          : where
            ? `${seen.detail} in ${shown}, ${surface.label.replace(/^hooks \((.*)\)$/, '$1')}`
            : seen.detail;
        checks.push({ check, id, ok: seen.ok, detail, path: surface.path });
        if (seen.server) server = seen.server;
      }
      const trust = await adapter.hookTrust?.(scope, ctx);
      if (trust) checks.push({ check: 'trust', id: 'trust', ok: trust.ok, detail: trust.detail });
      if (server) {
        const key = JSON.stringify(server);
        if (!probes.has(key)) probes.set(key, options.probe(server));
        const probe = await probes.get(key)!;
        checks.push({ check: 'server', id: 'server', ok: probe.ok, detail: probe.detail });
      }
      const gate = gateSummary(adapter);
      // A gate in a hook the host skips guards nothing: say so instead of "enforced".
      const skipped = trust && !trust.ok;
      checks.push({
        check: 'gate',
        id: 'gate',
        ok: true,
        detail: skipped ? `not enforced until ${adapter.name} runs the hooks (see trust)` : gate.text,
        proof: gateProof(adapter),
        ...(gate.enforced && !skipped ? {} : { info: true }),
      });
      const { commands, install } = adapter.caps.program;
      const absent = !commands.some((command) => findOnPath(command, options.env));
      hosts.push({
        host,
        name: adapter.name,
        scope,
        ok: checks.every((c) => c.ok),
        ...(absent
          ? {
              skipped: {
                reason: `${adapter.name} is not on this machine (no ${commands.map((c) => `\`${c}\``).join(' or ')} on PATH)`,
                install,
              },
            }
          : {}),
        checks,
      });
    }
  }
  return {
    project: options.project,
    // A host that is not on this machine cannot be broken on it, but the server it would start
    // can: a server answering bootstrap_session degraded fails doctor whatever host starts it
    // (issue 38: it printed an "ok" verdict and exited 0).
    ok: hosts.length > 0 && hosts.every((h) => h.ok || (h.skipped !== undefined && serverOk(h))),
    hosts,
    ...(swept ? { swept } : {}),
    ...(hosts.length === 0
      ? { note: 'firstlight is not installed here: run `firstlight install HOST`' }
      : {}),
  };
}

function serverOk(host: HostDiagnosis): boolean {
  return host.checks.every((c) => c.ok || c.check !== 'server');
}

function display(path: string, options: DoctorOptions): string {
  if (path.startsWith(`${options.project}/`)) return path.slice(options.project.length + 1);
  if (path.startsWith(`${options.userHome}/`)) return `~/${path.slice(options.userHome.length + 1)}`;
  return path;
}
