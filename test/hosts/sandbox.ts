/**
 * @module One isolated place to run a host: a project directory, its own HOME and TMPDIR, and a
 * fresh firstlight home made by `firstlight init`, all under one temp root. Host processes get
 * a minimal environment (nothing inherited but PATH and locale) with telemetry and updates off.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, run } from '../helpers/index.js';

/** The hook recorder script (see capture-hook.mjs). */
export const CAPTURE_HOOK = join(dirname(new URL(import.meta.url).pathname), 'capture-hook.mjs');

export interface Sandbox {
  root: string;
  /** The project the host runs in. */
  project: string;
  /** The host's HOME: every host keeps its user config and transcripts under it. */
  home: string;
  tmp: string;
  /** The firstlight home the installed server and hooks use. */
  firstlightHome: string;
  /** Where the hook recorder writes each hook's stdin. */
  hookInputs: string;
  /** The environment a host runs with (add the host's model settings on top). */
  env: NodeJS.ProcessEnv;
  dispose(): void;
}

/** Switches that keep hosts quiet: no telemetry, no update checks, no error reports. */
const QUIET_ENV = {
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  GEMINI_TELEMETRY_ENABLED: 'false',
  NO_UPDATE_NOTIFIER: '1',
  NO_COLOR: '1',
};

export async function createSandbox(label: string): Promise<Sandbox> {
  const root = mkdtempSync(join(tmpdir(), `firstlight-host-${label}-`));
  const dirs = {
    project: join(root, 'project'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    firstlightHome: join(root, 'firstlight-home'),
    hookInputs: join(root, 'hook-inputs'),
  };
  for (const d of [dirs.project, dirs.home, dirs.tmp]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: dirs.home,
    USERPROFILE: dirs.home,
    TMPDIR: dirs.tmp,
    TERM: 'dumb',
    ...QUIET_ENV,
  };
  const sandbox: Sandbox = {
    root,
    ...dirs,
    env,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
  const init = await firstlight(sandbox, ['init', '--example', '--home', dirs.firstlightHome]);
  if (init.status !== 0) throw new Error(`firstlight init failed: ${init.stderr}`);
  return sandbox;
}

/** Runs the built firstlight CLI in the project, with the sandbox's HOME (and `input` on stdin). */
export function firstlight(sandbox: Pick<Sandbox, 'project' | 'env'>, args: string[], input?: string) {
  return run(process.execPath, [CLI, ...args], {
    cwd: sandbox.project,
    env: sandbox.env,
    timeoutMs: 60_000,
    ...(input === undefined ? {} : { input }),
  });
}

/**
 * Routes every firstlight hook command in the given project files through the hook recorder,
 * which saves each stdin payload to `sandbox.hookInputs` and then runs the real command.
 */
export function recordHookInputs(sandbox: Sandbox, files: string[]): void {
  const hook = `${process.execPath} ${join(dirname(CLI), 'hook.cjs')}`;
  const recorded = `${process.execPath} ${CAPTURE_HOOK} ${sandbox.hookInputs} ${hook}`;
  for (const file of files) {
    const path = join(sandbox.project, file);
    if (!existsSync(path)) throw new Error(`no hook file ${file} to record from`);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(hook)) throw new Error(`${file} has no firstlight hook command`);
    writeFileSync(path, text.replaceAll(hook, recorded));
  }
}

/** A JSON file written with its directories. */
export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

export interface HostRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  ms: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a host CLI to completion without blocking the event loop (the scripted model server
 * answers from this same process). Past `timeoutMs` its whole process group is killed.
 */
export function runHost(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<HostRun> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({
        code: null,
        signal: null,
        timedOut,
        ms: Date.now() - started,
        stdout,
        stderr: String(error),
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, ms: Date.now() - started, stdout, stderr });
    });
  });
}

/** Copies a directory into the artifacts folder when it exists. */
export function keep(from: string, to: string): void {
  if (existsSync(from)) cpSync(from, to, { recursive: true });
}
