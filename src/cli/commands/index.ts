/**
 * @module cli/commands — one module per command. Each registers its name, options and help on the
 * program and imports nothing heavy at the top: its action loads what it needs when it runs.
 */
import type { Command } from 'commander';
import { registerCall } from './call.js';
import { registerCapture } from './capture.js';
import { registerDoctor } from './doctor.js';
import { registerEvents } from './events.js';
import { registerHelp } from './help.js';
import { registerHook } from './hook.js';
import { registerImport } from './import.js';
import { registerInit } from './init.js';
import { registerInstall, registerUninstall } from './install.js';
import { registerInternalize } from './internalize.js';
import { registerInvoke } from './invoke.js';
import { registerJournal } from './journal.js';
import { registerMemory } from './memory.js';
import { registerPacket } from './packet.js';
import { registerRecall } from './recall.js';
import { registerRemember } from './remember.js';
import { registerRepl } from './repl.js';
import { registerRuntime } from './runtime.js';
import { registerServe } from './serve.js';
import { registerSessions } from './sessions.js';
import { registerStatus } from './status.js';
import { registerTaskspace } from './taskspace.js';
import { registerUi } from './ui.js';

/** Every command, in help order. Each registers itself on the program; actions import lazily. */
export const COMMANDS: readonly ((program: Command) => void)[] = [
  registerInit,
  registerServe,
  registerCall,
  registerPacket,
  registerRemember,
  registerRecall,
  registerMemory,
  registerCapture,
  registerSessions,
  registerEvents,
  registerStatus,
  registerInternalize,
  registerImport,
  registerTaskspace,
  registerInstall,
  registerUninstall,
  registerDoctor,
  registerHook,
  registerRepl,
  registerInvoke,
  registerJournal,
  registerRuntime,
  registerUi,
  registerHelp,
];

/** Words people type for a command that has another name: suggested, never run. */
export const TOP_LEVEL_SYNONYMS: Record<string, string> = {
  search: 'recall',
  find: 'recall',
  query: 'recall',
  add: 'remember',
  save: 'remember',
  store: 'remember',
  forget: 'memory forget',
  list: 'memory list',
  show: 'memory show',
  edit: 'memory edit',
  setup: 'install',
  remove: 'uninstall',
  check: 'doctor',
  start: 'serve',
  run: 'invoke',
  python: 'repl',
  exec: 'repl exec',
  tool: 'call',
  log: 'events',
  history: 'sessions',
  docs: 'help',
};
