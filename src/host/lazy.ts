/**
 * The heavy entry points of the host part, behind dynamic imports: `firstlight hook` loads
 * this folder's index on every tool call, so install, uninstall and doctor (which pull in core's
 * locks, YAML and zod, smol-toml and the MCP SDK) load only when one of them is called.
 */

import type { Mind } from '../mind/index.js';
import type { DoctorOptions, DoctorReport, ProbeResult } from './doctor.js';
import type { SessionTextInput } from './hook/render-packet.js';
import type { InstallOptions, InstallReport } from './install/installer.js';
import type { InstalledScope, InstallStatusOptions } from './install-status.js';
import type { ProbeOptions } from './probe.js';

/** Writes the chosen hosts' files and records them in the manifest; re-running changes nothing. */
export async function install(options: InstallOptions): Promise<InstallReport> {
  return (await import('./install/installer.js')).install(options);
}

/** Reverses exactly what install did (byte-for-byte restore where the file is unchanged). */
export async function uninstall(options: InstallOptions): Promise<InstallReport> {
  return (await import('./install/installer.js')).uninstall(options);
}

/** Per installed host: files present and current, and a live bootstrap_session through the configured command. */
export async function doctor(options: DoctorOptions): Promise<DoctorReport> {
  return (await import('./doctor.js')).doctor(options);
}

/** Starts a server command over stdio with the MCP SDK client and calls bootstrap_session. */
export async function probeServer(
  server: { command: string; args: string[] },
  options: ProbeOptions,
): Promise<ProbeResult> {
  return (await import('./probe.js')).probeServer(server, options);
}

/** Starts a server command and completes the MCP handshake only (no tool call: records nothing). */
export async function handshakeServer(
  server: { command: string; args: string[] },
  options: ProbeOptions,
): Promise<ProbeResult> {
  return (await import('./probe.js')).handshakeServer(server, options);
}

/** Per scope, the hosts the install manifests name and whether their server command can start. */
export async function installStatus(options: InstallStatusOptions): Promise<InstalledScope[]> {
  return (await import('./install-status.js')).installStatus(options);
}

/**
 * The SessionStart text the hook would inject, rendered from a caller's own mind (built by
 * `createMind`); `preview` records nothing.
 */
export async function renderSessionText(mind: Mind, input: SessionTextInput): Promise<string> {
  return (await import('./hook/render-packet.js')).renderSessionText(mind, input);
}
