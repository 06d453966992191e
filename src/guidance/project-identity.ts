import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ensureDir, writeFileAtomicallySync } from '../core/index.js';
import { findProject, PROJECT_STATE_DIR, type ProjectLocation } from './project.js';

/**
 * Which project a memory belongs to: an id that survives moving or re-cloning the project, and
 * a name to show. `file`: `<root>/.firstlight/project.json` names it (written by a first
 * project memory where git has no commit to name it by, or by hand to pin an id); `git`: the
 * root commit of the repository's first-parent history (`git-<12 hex>`), the same in every
 * clone and worktree wherever it sits.
 */
export interface ProjectIdentity {
  id: string;
  name: string;
  root: string;
  source: 'file' | 'git';
}

/** `<root>/.firstlight/project.json` */
export const PROJECT_ID_FILE = 'project.json';
/** What project.json may hold as an id: short, lower-case, no spaces (it is a frontmatter value and a facet). */
const ID_PATTERN = /^[a-z0-9][a-z0-9_.-]{2,63}$/;

interface CacheRow {
  id: string;
  /** The `.git` entry's device and inode: a re-clone at the same path is another repository. */
  git: string;
}

/**
 * The identity of the project `start` lies in (walking up as findProject does), or null when it
 * is in no project (no `.firstlight/` and no git root above it): memories remembered there are
 * global. A git repository without a commit, or a `.firstlight/` without git, has no id until
 * `create` writes one into `.firstlight/project.json`.
 *
 * The git lookup (`git rev-list`, a few ms) is cached under `<home>/cache/project-ids.json`,
 * keyed by the root and its `.git` entry's inode; a session start costs a stat and a small read.
 */
export function projectIdentity(
  start: string,
  options: { home?: string; create?: boolean } = {},
): ProjectIdentity | null {
  const location = findProject(start, options.home ? { home: options.home } : {});
  if (location.found === 'start') return null;
  return identityAt(location, options);
}

function identityAt(
  location: ProjectLocation,
  options: { home?: string; create?: boolean },
): ProjectIdentity | null {
  const root = location.dir;
  const name = basename(root) || root;
  const pinned = readPinned(root);
  if (pinned) return { id: pinned, name, root, source: 'file' };
  const fromGit = gitIdentity(root, options.home);
  if (fromGit) return { id: fromGit, name, root, source: 'git' };
  if (!options.create) return null;
  const id = `fl-${randomBytes(6).toString('hex')}`;
  const dir = join(root, PROJECT_STATE_DIR);
  ensureDir(dir);
  writeFileAtomicallySync(join(dir, PROJECT_ID_FILE), `${JSON.stringify({ id, name }, null, 2)}\n`);
  return { id, name, root, source: 'file' };
}

/** The id `.firstlight/project.json` pins, if it holds a valid one. */
function readPinned(root: string): string | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(root, PROJECT_STATE_DIR, PROJECT_ID_FILE), 'utf8')) as {
      id?: unknown;
    };
    const id = typeof parsed.id === 'string' ? parsed.id.trim().toLowerCase() : '';
    return ID_PATTERN.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** `git-<12 hex>` of the first-parent root commit, cached per root and `.git` inode. */
function gitIdentity(root: string, home: string | undefined): string | undefined {
  const gitStamp = statStamp(join(root, '.git'));
  const cacheFile = home ? join(home, 'cache', 'project-ids.json') : undefined;
  const cache = cacheFile ? readCache(cacheFile) : {};
  const row = cache[root];
  if (gitStamp && row?.git === gitStamp) return row.id;
  const commit = rootCommit(root);
  if (!commit) return undefined;
  const id = `git-${commit.slice(0, 12)}`;
  if (cacheFile && gitStamp) {
    cache[root] = { id, git: gitStamp };
    try {
      ensureDir(join(cacheFile, '..'));
      writeFileAtomicallySync(cacheFile, JSON.stringify(cache));
    } catch {
      // derived: the next call asks git again
    }
  }
  return id;
}

/**
 * The root commit of HEAD's first-parent history: one commit even after another history was
 * merged in (it joins as a second parent). Undefined without git, outside a work tree, or
 * before the first commit. A shallow clone sees its shallow boundary instead: pin the id in
 * `.firstlight/project.json` for such checkouts.
 */
function rootCommit(root: string): string | undefined {
  try {
    const out = execFileSync('git', ['rev-list', '--first-parent', '--max-parents=0', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    const first = out.split('\n').find((l) => /^[0-9a-f]{40,64}$/.test(l.trim()));
    return first?.trim();
  } catch {
    return undefined;
  }
}

function statStamp(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function readCache(file: string): Record<string, CacheRow> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, CacheRow>)
      : {};
  } catch {
    return {};
  }
}
