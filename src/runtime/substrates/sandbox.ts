/**
 * The OS sandbox an agent CLI runs in for a session that may not change the project (a role
 * without mutating tools): bubblewrap (`bwrap`), called directly. The whole filesystem is
 * mounted read-only; the only writable places are the session's scratch directory, a private
 * temporary directory (`TMPDIR`), the CLI's own state (its login, settings and transcripts
 * under the home) and what the profile lists in `sandbox.writable`. The project is mounted
 * read-only again after those, so no writable entry can open it (the scratch directory inside
 * it comes after). The network is shared (the CLI talks to its model API); the shell commands
 * and MCP servers the CLI starts run inside too.
 *
 * A write the sandbox refuses fails in the CLI's tool with the kernel's EROFS ("Read-only file
 * system"); {@link isSandboxWriteDenial} recognises that in a tool result, so the substrate can
 * report it as a denial.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Substrate, SubstrateSandbox, SubstrateSandboxRequest } from './types.js';

/** The denial reason a write refused by the OS sandbox is journaled with. */
export const SANDBOX_DENIAL = 'sandbox_write_denied';

/**
 * EROFS as programs report it: `touch: cannot touch 'x': Read-only file system` (perror style,
 * at the end of a line), Node's `EROFS: read-only file system, open 'x'`, Python's `[Errno 30]`.
 */
const READ_ONLY_FS = [
  /: Read-only file system\s*$/m,
  /\bEROFS: read-only file system, \w+ '/,
  /\[Errno 30\] Read-only file system/,
];

/**
 * Tools that only read (the runtime's names, and Gemini CLI's where it has no runtime name): a
 * file they show may mention EROFS without any write being refused.
 */
const READ_TOOLS = new Set([
  ...['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch'],
  ...['read_file', 'read_many_files', 'grep_search', 'glob', 'list_directory', 'web_fetch'],
]);

/** True when a tool's result (`tool` in the runtime's names) says the OS sandbox refused a write. */
export function isSandboxWriteDenial(tool: string, output: string): boolean {
  return !READ_TOOLS.has(tool) && READ_ONLY_FS.some((pattern) => pattern.test(output));
}

/** What a CLI keeps under the home (`~/`) and must be able to write: its login, sessions, logs. */
export interface CliState {
  /** Directories the CLI writes; created before it starts when missing (it could not inside). */
  readonly dirs: readonly string[];
  /** Files and directories in those that stay read-only (settings a hook could be planted in). */
  readonly protect: readonly string[];
}

/** One confined run: the bwrap command line, and the temporary directory to remove after it. */
export interface SandboxPlan {
  readonly command: string;
  readonly args: readonly string[];
  /** The session's private temporary directory, removed by {@link SandboxPlan.dispose}. */
  readonly tmpDir: string;
  /** Removes the temporary directory, and the scratch directory when the session left it empty. */
  dispose(): void;
}

/**
 * Namespaces: a fresh mount, pid, ipc and uts namespace (and user namespace where bwrap needs
 * one), the network shared; a minimal /dev and a fresh /proc; the sandbox dies with its parent.
 * No capabilities: bwrap started by root keeps them all by default, and with CAP_SYS_ADMIN a
 * session could remount the read-only project writable (`mount -o remount,bind,rw`).
 */
const BASE_FLAGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-all',
  '--share-net',
  '--die-with-parent',
  '--cap-drop',
  'ALL',
];

const probes = new Map<string, Promise<string | null>>();

/** Runs bwrap once with the flags a session uses; why it cannot start, or null. */
function probe(command: string): Promise<string | null> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, [...BASE_FLAGS, '--', 'true'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolvePromise(
        error.code === 'ENOENT'
          ? `the OS sandbox "${command}" was not found; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap) or set substrates.sandbox.command in firstlight.yaml`
          : `the OS sandbox "${command}" could not be started: ${error.message}`,
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise(null);
      else
        resolvePromise(
          `the OS sandbox "${command}" cannot start here (exit ${code ?? signal}): ${stderr.trim().split('\n').slice(-2).join(' ') || 'no message'}; user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or an AppArmor profile for bwrap)`,
        );
    });
  });
}

/** The bubblewrap sandbox; `command` is the `bwrap` executable. A success is remembered per process. */
export function bwrapSandbox(command: string): SubstrateSandbox {
  return {
    kind: 'bwrap',
    command,
    async unavailable() {
      let pending = probes.get(command);
      if (!pending) {
        pending = probe(command);
        probes.set(command, pending);
      }
      const why = await pending;
      // A failure is not remembered: installing bubblewrap fixes it without a restart.
      if (why) probes.delete(command);
      return why;
    },
  };
}

/** `~/x` against the CLI's home, a relative path against the project. */
function expand(path: string, home: string, project: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(project, path);
}

/**
 * The bwrap argv that runs `command args` confined: the read-only root, the writable places,
 * the project read-only again, the scratch directory writable inside it, and `TMPDIR`.
 */
export function sandboxPlan(
  sandbox: SubstrateSandbox,
  request: SubstrateSandboxRequest,
  run: { command: string; args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv; state: CliState },
): SandboxPlan {
  const home = run.env.HOME || homedir();
  const project = resolve(request.projectDir);
  mkdirSync(request.scratchDir, { recursive: true });
  const tmpDir = mkdtempSync(join(tmpdir(), 'firstlight-sandbox-'));
  const args = [...BASE_FLAGS];
  const bind = (flag: string, path: string) => args.push(flag, path, path);
  for (const dir of run.state.dirs) {
    const path = expand(dir, home, project);
    mkdirSync(path, { recursive: true });
    bind('--bind', path);
  }
  for (const path of request.writable) bind('--bind-try', expand(path, home, project));
  bind('--bind', tmpDir);
  bind('--ro-bind', project);
  bind('--bind', request.scratchDir);
  for (const file of run.state.protect) bind('--ro-bind-try', expand(file, home, project));
  args.push('--chdir', run.cwd, '--setenv', 'TMPDIR', tmpDir, '--', resolveCommand(run.command, run.env));
  args.push(...run.args);
  return {
    command: sandbox.command,
    args,
    tmpDir,
    dispose() {
      rmSync(tmpDir, { recursive: true, force: true });
      try {
        if (readdirSync(request.scratchDir).length === 0) rmSync(request.scratchDir, { recursive: true });
      } catch {
        // Already gone.
      }
    },
  };
}

/**
 * The executable's path, looked up on the CLI's PATH the way spawn would: inside the sandbox a
 * missing CLI is only bwrap's exit 1, so a missing one is reported before it starts.
 */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv): string {
  if (command.includes('/')) return resolve(command);
  // As spawn looks it up: the environment's PATH, or the default search path without one.
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return command;
}

/** True when `command` names an executable that exists (a path, or a name on `env.PATH`). */
export function commandExists(command: string, env: NodeJS.ProcessEnv): boolean {
  const path = resolveCommand(command, env);
  return path.includes('/') && existsSync(path);
}

/** The system prompt with a line telling a confined session where it may write. */
export function withSandboxNote(systemPrompt: string, request: SubstrateSandboxRequest | undefined): string {
  if (!request) return systemPrompt;
  const note = `This session runs in a read-only OS sandbox: the project and the rest of the filesystem cannot be written. Write drafts and temporary files only under ${request.scratchDir}.`;
  return systemPrompt ? `${systemPrompt}\n\n${note}` : note;
}

/** How one session is confined, decided before it starts. */
export interface SessionSandbox {
  /** Given to the substrate when the session runs in its OS sandbox. */
  readonly request?: SubstrateSandboxRequest;
  /** The journal start row's `sandbox` field: the sandbox's kind, or `off: REASON`. */
  readonly journal?: string;
  /** `meta.sandbox`: the kind and the scratch directory, or `off` and the profile's reason. */
  readonly meta?: { readonly kind: string; readonly scratch?: string; readonly reason?: string };
}

/**
 * A session that may not write (`mayWrite` false: a role without mutating tools) on a substrate
 * that runs tools in its own process (an agent CLI) runs in that substrate's OS sandbox, unless
 * the profile says `sandbox: {mode: off, reason}`. Every other session is not confined: the
 * runtime executes its tool calls itself, or it may write anyway.
 */
export function sessionSandbox(
  substrate: Substrate,
  options: {
    readonly mayWrite: boolean;
    readonly config: {
      readonly mode: 'required' | 'off';
      readonly reason?: string;
      readonly writable: readonly string[];
    };
    readonly projectDir: string;
    readonly scratchDir: string;
  },
): SessionSandbox {
  if (options.mayWrite || !substrate.sandbox) return {};
  if (options.config.mode === 'off') {
    const reason = options.config.reason ?? '';
    return { journal: `off: ${reason}`, meta: { kind: 'off', reason } };
  }
  return {
    request: {
      projectDir: options.projectDir,
      scratchDir: options.scratchDir,
      writable: options.config.writable,
    },
    journal: substrate.sandbox.kind,
    meta: { kind: substrate.sandbox.kind, scratch: options.scratchDir },
  };
}
