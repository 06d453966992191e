import { cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ensureDir } from './dirs.js';
import { SystemError, UserError } from './errors.js';
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
  refuseNonEmpty(
    dir,
    options.force,
    'pass --force to add the example files that are missing (existing files are kept)',
  );
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

/** True when `dir` holds a home: a persona, a memory directory or a settings file. */
export function isHome(dir: string): boolean {
  return (
    existsSync(join(dir, 'persona')) ||
    existsSync(join(dir, 'memory')) ||
    existsSync(join(dir, 'firstlight.yaml'))
  );
}

/**
 * The home a command works on must exist: only `firstlight init` makes one, so a mistyped
 * `--home` is an error with the fix instead of a new home. Writes nothing. Exit 1. `source` says
 * how the caller chose `dir` (the CLI knows): the fix repeats `--home DIR` only when it was given.
 */
export function requireHome(dir: string, source: HomeSource = 'flag'): void {
  if (isHome(dir)) return;
  const hint = {
    flag: `run firstlight init --home ${dir} (or pass the --home of an existing home)`,
    env: 'run firstlight init (it makes the home $FIRSTLIGHT_HOME names), or point $FIRSTLIGHT_HOME at an existing home',
    default: 'run firstlight init',
  }[source];
  throw new SystemError(`no firstlight home at ${dir}`, { code: 'HOME_NOT_FOUND', hint });
}

/** What `firstlight init` asks for: the user's own persona, not the example's. */
export interface PersonaAnswers {
  /** The persona's name. */
  name: string;
  /** Who the user is, in their words (one line or a few). */
  user: string;
  /** How they like to work. */
  style: string;
}

export const DEFAULT_PERSONA: PersonaAnswers = {
  name: 'Firstlight',
  user: '',
  style: 'Direct and concise. Explain the reason behind a decision. Ask before anything destructive.',
};

/**
 * Makes a new home for the user's own mind: a short persona template with their answers, the
 * settings naming the persona, an empty memory (only the index), and the runtime's five role
 * personas (explorer, planner, builder, auditor, resolver) from the bundled example. Refuses a
 * non-empty directory unless `force`, and never overwrites an existing file.
 */
export function createHome(
  dir: string,
  answers: PersonaAnswers,
  options: { force?: boolean } = {},
): InitResult {
  refuseNonEmpty(dir, options.force, 'pass --force to add the missing files (existing files are kept)');
  const files: Record<string, string> = {
    'firstlight.yaml': settingsTemplate(answers.name),
    'persona/agent_system.md': personaTemplate(answers),
    'memory/MEMORY.md': '# Memory index\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    if (existsSync(path)) continue;
    ensureDir(dirname(path));
    writeFileSync(path, text);
  }
  const personas = join(exampleHomeDir(), 'personas');
  if (existsSync(personas)) {
    cpSync(personas, join(dir, 'personas'), { recursive: true, force: false, errorOnExist: false });
  }
  return { dir, created: true };
}

function settingsTemplate(name: string): string {
  return [
    '# firstlight settings for this home. Every key is optional; see docs/settings.md.',
    'persona:',
    `  name: ${JSON.stringify(name)}`,
    '',
  ].join('\n');
}

function personaTemplate(answers: PersonaAnswers): string {
  const user = answers.user.trim();
  const style = answers.style.trim() || DEFAULT_PERSONA.style;
  return [
    `# ${answers.name} — mind contract`,
    '',
    `You are ${answers.name}, a collaborator who works across sessions. The host gives you a body`,
    '(tools, files, a terminal); this contract and your memory give you continuity. Edit this file',
    'to make it yours: it is read at the start of every session.',
    '',
    '## Who you work with',
    '',
    user ||
      'Not written yet. Learn who the user is by asking, and keep what matters with `remember` (type `user`).',
    '',
    '## How they like to work',
    '',
    style,
    '',
    '## Continuity',
    '',
    '- Your memory starts empty. Store what should outlast this session with `remember`; look',
    '  things up with `recall` before you ask again.',
    '- When a resumption section opens a session, those are your own last words: continue from them.',
    '- Say what you do not know instead of guessing.',
    '',
  ].join('\n');
}

function refuseNonEmpty(dir: string, force: boolean | undefined, hint: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !force) {
    throw new UserError(`${dir} already exists and is not empty`, { code: 'HOME_EXISTS', hint });
  }
}
