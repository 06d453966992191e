/**
 * @module host — host bootstrap: one adapter per host (instruction surfaces, MCP config, hook
 * formats) in one registry, the marked-block editor, install/uninstall with a manifest, doctor,
 * the hook runner and its emitter, and the report renderings.
 *
 * `firstlight hook` imports this on every tool call, so everything imported here statically is
 * light; install, uninstall, doctor and the probe load on first call (see lazy.ts).
 */
export { adapterFor, HOST_ADAPTERS } from './adapters/index.js';
export {
  BLOCK_BODY,
  BLOCK_VERSION,
  blockBody,
  blockVersions,
  removeBlock,
  renderBlock,
  upsertBlock,
} from './bootstrap-block.js';
export type {
  CheckName,
  DoctorCheck,
  DoctorOptions,
  DoctorReport,
  HostDiagnosis,
  ProbeResult,
} from './doctor.js';
export { emitHookCrash, emitHookOutput } from './hook/emit.js';
export {
  DEFAULT_GATED,
  DEFAULT_GATED_TOOLS,
  GATE_BYPASS_ENV,
  GATED_TOOLS_ENV,
  PENDING_WAIT_ENV,
} from './hook/gate-config.js';
export type { Injection } from './hook/ledger.js';
export { ledgerSessionName, listInjections } from './hook/ledger.js';
export type { SessionTextInput } from './hook/render-packet.js';
export { runHook } from './hook/run-any.js';
export type { HookRunOptions } from './hook/run-hook.js';
export { detectHost } from './hook/run-hook.js';
export { proveBootstrap } from './hook/transcript-scan.js';
export type { HookEvent, HostId, Scope } from './ids.js';
export { HOOK_EVENTS, HOST_IDS, isHookEvent, isHostId, SCOPES } from './ids.js';
export type { CommandInput, ResolvedCommands } from './install/command.js';
export { resolveCommands, shellQuote } from './install/command.js';
export type { FileAction, FileReport, InstallOptions, InstallReport } from './install/installer.js';
export type { InstalledCommand } from './install/manifest.js';
export type { InstalledScope, InstallStatusOptions } from './install-status.js';
export {
  doctor,
  handshakeServer,
  install,
  installStatus,
  probeServer,
  renderSessionText,
  uninstall,
} from './lazy.js';
export type { ProbeOptions } from './probe.js';
export {
  hostState,
  renderDoctorReport,
  renderHostFormatTable,
  renderInstallReport,
  renderUninstallReport,
} from './report.js';
export type {
  HookInput,
  HookOutput,
  HookResult,
  HostAdapter,
  HostCaps,
  InstallContext,
  RecordGate,
  ServerSpec,
  Surface,
} from './types.js';
