import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from '../../../core/index.js';

/** Where Claude Code's auto-memory is, and a project setting that was not trusted, when one was not. */
export interface ClaudeMemoryDir {
  dir: string;
  /** A project's `autoMemoryDirectory` that leads out of the project: ignored, and said why. */
  refusedSetting?: { file: string; value: string; resolved: string };
}

/**
 * Where Claude Code keeps its auto-memory for a project, as Claude Code 2.1.197 decides it (read
 * from its CLI): `$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`; else the `autoMemoryDirectory` setting
 * (the project's `.claude/settings.local.json` and `.claude/settings.json`, then the user's
 * `settings.json`; `~/` expanded); else `<config>/projects/<key>/memory/`, where `<config>` is
 * `$CLAUDE_CODE_REMOTE_MEMORY_DIR`, `$CLAUDE_CONFIG_DIR` or `~/.claude`, and `<key>` is the
 * project's git root (a worktree's main repository) with every character other than a-z, A-Z
 * and 0-9 replaced by `-` (past 200 characters Claude Code appends a hash: the directory is then
 * found by its first 200). The files are markdown with `name`, `description` and `type` (user,
 * feedback, project, reference) frontmatter, indexed by a MEMORY.md.
 *
 * Trust: the user's own environment and settings are followed as they say. A project's settings
 * come with the repository (a clone may carry any), so their `autoMemoryDirectory` is followed
 * only while it resolves inside the project; one leading out is ignored and reported.
 */
export function claudeAutoMemoryDir(
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): ClaudeMemoryDir {
  const override = env.CLAUDE_COWORK_MEMORY_PATH_OVERRIDE;
  if (override) return { dir: resolve(override) };
  const config = env.CLAUDE_CONFIG_DIR ?? join(homedir(), '.claude');
  const root = gitRootOf(projectDir) ?? resolve(projectDir);
  const expand = (value: string) =>
    value.startsWith('~/') ? join(homedir(), value.slice(2)) : resolve(root, value);
  let refusedSetting: ClaudeMemoryDir['refusedSetting'];
  for (const file of [join(root, '.claude', 'settings.local.json'), join(root, '.claude', 'settings.json')]) {
    const value = settingIn(file);
    if (value === undefined) continue;
    const resolved = expand(value);
    if (isInside(canonical(root), canonical(resolved))) return { dir: resolved };
    refusedSetting ??= { file, value, resolved };
  }
  const user = settingIn(join(config, 'settings.json'));
  const found = (dir: string): ClaudeMemoryDir => (refusedSetting ? { dir, refusedSetting } : { dir });
  if (user) return found(expand(user));
  const projects = join(env.CLAUDE_CODE_REMOTE_MEMORY_DIR ?? config, 'projects');
  const key = canonical(root).replace(/[^a-zA-Z0-9]/g, '-');
  if (key.length <= 200) return found(join(projects, key, 'memory'));
  // Claude Code adds a hash of the path past 200 characters; find the directory by its prefix.
  const prefix = `${key.slice(0, 200)}-`;
  try {
    const hit = readdirSync(projects).find((name) => name.startsWith(prefix));
    if (hit) return found(join(projects, hit, 'memory'));
  } catch {
    // no projects/ yet
  }
  return found(join(projects, key.slice(0, 200), 'memory'));
}

function settingIn(file: string): string | undefined {
  try {
    const value = (JSON.parse(readFileSync(file, 'utf8')) as { autoMemoryDirectory?: unknown })
      .autoMemoryDirectory;
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  } catch {
    // absent or not JSON
  }
  return undefined;
}

/** The git root above `dir`; for a worktree (`.git` is a `gitdir:` file), its main repository's root. */
function gitRootOf(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    if (existsSync(dotGit)) return mainRepoRoot(at, dotGit);
    if (dirname(at) === at) return undefined;
  }
}

function mainRepoRoot(root: string, dotGit: string): string {
  try {
    if (statSync(dotGit).isDirectory()) return root;
    const text = readFileSync(dotGit, 'utf8').trim();
    if (!text.startsWith('gitdir:')) return root;
    const gitdir = resolve(root, text.slice(7).trim());
    const common = readFileSync(join(gitdir, 'commondir'), 'utf8').trim();
    const commonDir = isAbsolute(common) ? common : resolve(gitdir, common);
    return commonDir.endsWith(`${'/'}.git`) ? dirname(commonDir) : root;
  } catch {
    return root;
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
