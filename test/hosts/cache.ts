/**
 * @module The pinned host CLIs and the cache they are installed into, outside the repo:
 * `${FIRSTLIGHT_HOSTS_CACHE:-~/.cache/firstlight-hosts}/<pkg with @ and / as _>_<version>`,
 * one `npm install --prefix` each, reused while its binary is present.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { run as runProcess } from '../helpers/index.js';

/** Every host CLI the real-host suite runs, pinned. Bump a version here and re-run. */
const PINNED = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
} as const;

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The Claude Code version to run: `FIRSTLIGHT_CLAUDE_VERSION` unset (or `pinned`) keeps the
 * pinned one, `latest` asks the registry for the newest published (`npm view`), anything else is
 * taken as the version to install. Claude Code changes fastest of the hosts, so the suite runs it
 * at both ends.
 */
export async function claudeVersion(
  wanted = process.env.FIRSTLIGHT_CLAUDE_VERSION?.trim() ?? '',
): Promise<string> {
  if (wanted === '' || wanted === 'pinned') return PINNED.claude.version;
  if (wanted !== 'latest') return wanted;
  const r = await runProcess(NPM, ['view', PINNED.claude.pkg, 'version'], { timeoutMs: 60_000 });
  const version = r.stdout.trim();
  if (r.status !== 0 || !/^\d+\.\d+\.\d+/.test(version)) {
    throw new Error(
      `FIRSTLIGHT_CLAUDE_VERSION=latest: \`npm view ${PINNED.claude.pkg} version\` failed (${r.stderr.trim().slice(0, 200)}); set a version instead, such as FIRSTLIGHT_CLAUDE_VERSION=2.1.332`,
    );
  }
  return version;
}

/** Claude Code's pinned version (what the suite runs unless FIRSTLIGHT_CLAUDE_VERSION says otherwise). */
export const CLAUDE_PINNED = PINNED.claude.version;

export const PINNED_HOSTS = {
  ...PINNED,
  claude: { ...PINNED.claude, version: await claudeVersion() },
};

export type PinnedHostId = keyof typeof PINNED_HOSTS;

/** The cache root; `FIRSTLIGHT_HOSTS_CACHE` overrides it. */
export function hostsCacheRoot(): string {
  return process.env.FIRSTLIGHT_HOSTS_CACHE || join(homedir(), '.cache', 'firstlight-hosts');
}

/** The install directory of one pinned package: `_anthropic-ai_claude-code_2.1.197`. */
export function installDir(id: PinnedHostId, root = hostsCacheRoot()): string {
  const { pkg, version } = PINNED_HOSTS[id];
  return join(root, `${pkg.replace(/[@/]/g, '_')}_${version}`);
}

/** The installed binary of a host, present or not. */
export function hostBinary(id: PinnedHostId, root = hostsCacheRoot()): string {
  return join(installDir(id, root), 'node_modules', '.bin', PINNED_HOSTS[id].bin);
}

/** A host's binary, or why it is unavailable; `installMs` is set when this call installed it. */
export type EnsuredHost =
  | { ok: true; bin: string; installMs: number | null }
  | { ok: false; reason: string; installMs: number | null };

function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: String(error) });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Installs a pinned host into the cache unless its binary is already there. Installs into a
 * sibling temp directory and renames it into place, so an interrupted install leaves nothing
 * that looks complete. Never throws: a failed install (no registry) comes back as a reason.
 */
export async function ensureHost(id: PinnedHostId, root = hostsCacheRoot()): Promise<EnsuredHost> {
  const bin = hostBinary(id, root);
  if (existsSync(bin)) return { ok: true, bin, installMs: null };
  const { pkg, version } = PINNED_HOSTS[id];
  const dir = installDir(id, root);
  const staging = `${dir}.installing-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  const started = Date.now();
  const r = await run(
    NPM,
    ['install', '--prefix', staging, '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`],
    10 * 60_000,
  );
  const installMs = Date.now() - started;
  if (r.code !== 0 || !existsSync(join(staging, 'node_modules', '.bin', PINNED_HOSTS[id].bin))) {
    rmSync(staging, { recursive: true, force: true });
    const errors = r.output.split('\n').filter((l) => /\berr(or)?\b/i.test(l));
    const why = (errors.length > 0 ? errors.slice(0, 3).join(' ') : r.output.trim().slice(-300)).replace(
      /\s+/g,
      ' ',
    );
    return { ok: false, reason: `npm install ${pkg}@${version} failed: ${why}`, installMs };
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return { ok: true, bin, installMs };
}
