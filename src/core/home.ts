import { cpSync, existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDir } from './dirs.js';
import { UserError } from './errors.js';
import { packagePath } from './package-root.js';

/** Where a home came from; reported by `doctor` and in logs. */
export type HomeSource = 'flag' | 'env' | 'default';

export interface ResolvedHome {
  dir: string;
  source: HomeSource;
}

export interface ResolveHomeInput {
  /** `--home DIR` */
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** The user's home directory (defaults to os.homedir()). */
  userHome?: string;
  cwd?: string;
}

/** `--home`, else `$FIRSTLIGHT_HOME`, else `~/.firstlight`. */
export function resolveHome(input: ResolveHomeInput = {}): ResolvedHome {
  const cwd = input.cwd ?? process.cwd();
  if (input.flag) return { dir: resolve(cwd, input.flag), source: 'flag' };
  const fromEnv = (input.env ?? process.env).FIRSTLIGHT_HOME;
  if (fromEnv) return { dir: resolve(cwd, fromEnv), source: 'env' };
  return { dir: join(input.userHome ?? homedir(), '.firstlight'), source: 'default' };
}

/** Paths inside a home; the one place that knows the layout. */
export function homePaths(home: string): HomePaths {
  let paths = pathsByHome.get(home);
  if (!paths) {
    paths = computeHomePaths(home);
    pathsByHome.set(home, paths);
  }
  return paths;
}

const pathsByHome = new Map<string, ReturnType<typeof computeHomePaths>>();

function computeHomePaths(home: string) {
  return {
    home,
    settings: join(home, 'firstlight.yaml'),
    persona: join(home, 'persona'),
    contractRoot: join(home, 'persona', 'agent_system.md'),
    memory: join(home, 'memory'),
    memoryIndex: join(home, 'memory', 'MEMORY.md'),
    commitments: join(home, 'memory', 'running_commitments.md'),
    carryForward: join(home, 'memory', 'carry_forward.md'),
    events: join(home, 'events'),
    selfState: join(home, 'self-state.json'),
    guidance: join(home, 'guidance'),
    replStates: join(home, 'repl', 'states'),
    cache: join(home, 'cache'),
  };
}

export type HomePaths = Readonly<ReturnType<typeof computeHomePaths>>;

/** The example home bundled with the package (the embedded default persona). */
export function exampleHomeDir(): string {
  return packagePath('examples', 'home');
}

export interface InitResult {
  dir: string;
  created: boolean;
}

/**
 * Scaffolds a home from the bundled example (or `from`): only the {@link HOME_TEMPLATE} entries.
 * Refuses to write into a non-empty directory unless `force` is set, and even then never
 * overwrites an existing file.
 */
export function initHome(dir: string, options: { force?: boolean; from?: string } = {}): InitResult {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!options.force) {
      throw new UserError(`${dir} already exists and is not empty`, {
        code: 'HOME_EXISTS',
        hint: 'pass --force to add the example files that are missing (existing files are kept)',
      });
    }
  }
  ensureDir(dir);
  const example = options.from ?? exampleHomeDir();
  for (const entry of HOME_TEMPLATE) {
    const source = join(example, entry);
    if (!existsSync(source)) continue;
    cpSync(source, join(dir, entry), {
      recursive: true,
      force: false,
      errorOnExist: false,
      // `npm start` serves the example home itself: its lock directories are live state too.
      filter: (path) => !path.endsWith('.lock'),
    });
  }
  return { dir, created: true };
}

/**
 * What a new home is made of: the example's settings, persona, memories, guidance overrides
 * and runtime persona profiles.
 * An allowlist, because the example is also served live (`npm start`) and collects state
 * (sessions.jsonl, cache/, events/, self-state.json, locks) no new home should inherit.
 */
export const HOME_TEMPLATE: readonly string[] = [
  'firstlight.yaml',
  'persona',
  'memory',
  'guidance',
  'personas',
];

/** Makes sure a home exists, scaffolding it from the example when it does not. */
export function ensureHome(dir: string): InitResult {
  if (
    existsSync(join(dir, 'persona')) ||
    existsSync(join(dir, 'memory')) ||
    existsSync(join(dir, 'firstlight.yaml'))
  ) {
    return { dir, created: false };
  }
  return initHome(dir, { force: true });
}
