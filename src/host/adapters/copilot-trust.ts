/**
 * Whether Copilot CLI will run a project's `.github/hooks/*.json`. It loads them only in a folder
 * the user trusts (asked once interactively, stored as `trusted_folders` in
 * `$COPILOT_HOME/config.json`, default `~/.copilot/config.json`); in any other folder a session,
 * `copilot -p` included, runs none of them: no SessionStart packet and no gate (its log says only
 * "no hook session for session id …"). A trusted folder covers the folders under it. Measured with
 * Copilot CLI 1.0.102 (test/hosts).
 */
import { join, relative, resolve, sep } from 'node:path';
import { readTextIfExists } from '../../core/index.js';
import { parseJsonConfig } from '../install/json-config.js';

/** The file Copilot CLI keeps folder trust in. */
export function copilotConfigPath(copilotHome: string): string {
  return join(copilotHome, 'config.json');
}

const inside = (dir: string, root: string) => {
  const rel = relative(resolve(root), resolve(dir));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
};

/** Doctor's trust check: user-scope installs write no hooks; project hooks need the folder trusted. */
export function copilotHookTrust(
  scope: 'project' | 'user',
  project: string,
  copilotHome: string,
): { ok: boolean; detail: string } {
  return scope === 'project'
    ? copilotFolderTrust(project, copilotHome)
    : { ok: true, detail: 'no project hooks at user scope' };
}

/** Is `project` (or a folder above it) in Copilot CLI's trusted folders? */
export function copilotFolderTrust(project: string, copilotHome: string): { ok: boolean; detail: string } {
  const path = copilotConfigPath(copilotHome);
  const text = readTextIfExists(path);
  const parsed = text === undefined ? undefined : parseJsonConfig(text);
  const folders =
    parsed?.ok && Array.isArray(parsed.value.trusted_folders)
      ? parsed.value.trusted_folders.filter((f): f is string => typeof f === 'string')
      : [];
  const trusted = folders.find((f) => inside(project, f));
  return trusted
    ? {
        ok: true,
        detail: `the folder is trusted (${trusted} in ${path}): Copilot CLI runs the project hooks`,
      }
    : {
        ok: false,
        detail: `the folder is not trusted in ${path} (trusted_folders): Copilot CLI runs no project hook there (no SessionStart packet, no gate); start \`copilot\` in it once and trust the folder`,
      };
}
