/**
 * firstlight as a library: for programs that spawn agent sessions and want them to start
 * oriented without going through an MCP host. Each part's own `index.ts` is its full surface;
 * this file names the pieces such a program needs, part by part.
 *
 *   const packet = await bootstrapSession({ home, sessionId });   // what bootstrap_session returns
 *   const text = renderPacketMarkdown(packet);                      // what SessionStart injects
 */

import { ensureHome, resolveHome } from './core/index.js';
import { type BootstrapPacket, createMind } from './mind/index.js';

export type { Logger, LogLevel, Settings } from './core/index.js';
// core: the home, its settings, the error tree every failure is an instance of.
export {
  ConfigError,
  FirstlightError,
  initHome,
  isFirstlightError,
  loadSettings,
  NotFoundError,
  PathEscapeError,
  resolveHome,
  SystemError,
  UserError,
} from './core/index.js';
export type { GuidanceDoc, Taskspace } from './guidance/index.js';
// guidance: docs, the yiasou boot prompt and the project's taskspace.
export {
  assembleBootPrompt,
  createGuidance,
  findProject,
  readTaskspace,
  writeTaskspace,
} from './guidance/index.js';
export type { DoctorReport, HookEvent, HostId, InstallReport } from './host/index.js';
// host: install / uninstall / doctor per host, and the hook runner.
export { doctor, HOST_IDS, install, runHook, uninstall } from './host/index.js';
// hub: MCP client connections to backend servers.
export { Hub, unwrapToolResult } from './hub/index.js';
export type { ActiveContext, BootstrapPacket, MindOptions, Resumption } from './mind/index.js';
// mind: the packet, its schema and rendering, memory and cognition.
export {
  createMind,
  Mind,
  PACKET_SCHEMA_VERSION,
  packetJsonSchema,
  packetSchema,
  renderPacketMarkdown,
} from './mind/index.js';
export type { ExecutionResult, ReplState } from './repl/index.js';
// repl: the persistent Python REPL harness.
export { Repl } from './repl/index.js';
export type { FeelAssessment, SelfState } from './resume/index.js';
// resume: capture (tool and transcripts), the policy-aware section, the shared renderer.
export {
  assessResumptionFeel,
  captureFromTranscript,
  internalize,
  loadResumption,
  readSelfState,
  renderResumption,
} from './resume/index.js';
export type {
  InvokeRequest,
  InvokeResult,
  Runtime,
  RuntimeOptions,
  Substrate,
  SubstrateRequest,
  SubstrateResult,
} from './runtime/index.js';
// runtime: a persona in a role as a fresh session on a substrate (createRuntime().invoke()).
export { createRuntime, readJournal, resolveSubstrate, ScriptedSubstrate } from './runtime/index.js';
export type { Firstlight, FirstlightOptions } from './servers/index.js';
// servers: the composition root, the MCP servers over it and their transports, for embedding.
export {
  createFirstlight,
  createMindServer,
  createReplServer,
  serveHttp,
  serveStdio,
} from './servers/index.js';

export interface BootstrapSessionOptions {
  /** The home; defaults to $FIRSTLIGHT_HOME, else ~/.firstlight (created from the example if missing). */
  home?: string;
  sessionId?: string | null;
  /** Where the taskspace is looked up (walking up); defaults to the current directory. */
  projectDir?: string;
  /** Build the packet without recording a session start or consuming a clear-after-inject tail. */
  preview?: boolean;
}

/**
 * One bootstrap, in process: the same packet `bootstrap_session` returns over MCP, for a program
 * that composes an agent's first prompt itself. Records the session start unless `preview`.
 */
export async function bootstrapSession(options: BootstrapSessionOptions = {}): Promise<BootstrapPacket> {
  const home = resolveHome({ flag: options.home }).dir;
  ensureHome(home);
  const mind = createMind({ home, projectDir: options.projectDir ?? process.cwd() });
  try {
    return await mind.bootstrap({ sessionId: options.sessionId ?? null, preview: options.preview ?? false });
  } finally {
    mind.close();
  }
}
