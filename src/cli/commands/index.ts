import type { Command } from 'commander';
import { registerDoctor } from './doctor.js';
import { registerEvents } from './events.js';
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

/** Every command, in help order. Each registers itself on the program; actions import lazily. */
export const COMMANDS: readonly ((program: Command) => void)[] = [
  registerInit,
  registerServe,
  registerPacket,
  registerRemember,
  registerRecall,
  registerMemory,
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
];
