import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { packagePath, UserError } from '../../core/index.js';
import type { Substrate } from './types.js';

/**
 * The substrate registry: a spec `KIND` or `KIND:ARG` (`scripted:session.yaml`) names a
 * factory. Factories import their module only when called, so resolving one substrate loads
 * no other. A new substrate is one line in {@link SUBSTRATE_FACTORIES}.
 */

export interface SubstrateFactoryOptions {
  /** What followed `KIND:` in the spec (a file for `scripted`, a model name, …). */
  readonly arg?: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Loaded settings (`substrates:` holds models, base URLs, key variables, retries). */
  readonly settings?: { readonly substrates?: unknown };
}

export type SubstrateFactory = (options: SubstrateFactoryOptions) => Promise<Substrate>;

export const SUBSTRATE_FACTORIES: Readonly<Record<string, SubstrateFactory>> = {
  scripted: async ({ arg, cwd }) => {
    if (!arg) {
      throw new UserError('the scripted substrate needs a script file', {
        code: 'SUBSTRATE_INVALID',
        hint: 'give the substrate as scripted:FILE (see docs/runtime.md, "The scripted substrate")',
      });
    }
    const { scriptedSubstrateFromFile } = await import('./scripted.js');
    return scriptedSubstrateFromFile(scriptFile(arg, cwd));
  },
  anthropic: (options) => real('anthropic', options),
  'openai-compatible': (options) => real('openai-compatible', options),
  'claude-cli': (options) => real('claude-cli', options),
  'codex-cli': (options) => real('codex-cli', options),
  'gemini-cli': (options) => real('gemini-cli', options),
  command: (options) => real('command', options),
};

/** Where the scripted sessions that ship with firstlight live (the ones the docs run). */
export function bundledSessionsDir(): string {
  return packagePath('examples', 'sessions');
}

/** The names of the bundled scripted sessions (`scripted:NAME`). */
export function bundledSessions(): string[] {
  if (!existsSync(bundledSessionsDir())) return [];
  return readdirSync(bundledSessionsDir())
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => name.slice(0, -'.yaml'.length))
    .sort();
}

/**
 * A `scripted:` argument as a file: a path (relative to `cwd`) when it exists or looks like
 * one, else the bundled session of that name, so the docs' commands run anywhere.
 */
function scriptFile(arg: string, cwd: string): string {
  const path = resolve(cwd, arg);
  if (existsSync(path) || /[\\/]|\.(?:ya?ml|json)$/i.test(arg)) return path;
  const bundled = resolve(bundledSessionsDir(), `${arg}.yaml`);
  if (existsSync(bundled)) return bundled;
  throw new UserError(`no script file "${arg}" and no bundled scripted session of that name`, {
    code: 'SUBSTRATE_INVALID',
    hint: `give the substrate as scripted:FILE, or scripted:NAME of a bundled session: ${bundledSessions().join(', ') || '(none installed)'}`,
  });
}

/** The model APIs and agent CLIs (create.ts), built from the spec, environment and settings. */
async function real(kind: string, options: SubstrateFactoryOptions): Promise<Substrate> {
  const { createSubstrate } = await import('./create.js');
  return createSubstrate(options.arg === undefined ? kind : `${kind}:${options.arg}`, {
    cwd: options.cwd,
    env: options.env,
    ...(options.settings ? { settings: options.settings } : {}),
  });
}

/** The kinds the registry knows, for help text and errors. */
export function substrateKinds(): string[] {
  return Object.keys(SUBSTRATE_FACTORIES);
}

/** Splits `KIND:ARG`; a Windows drive letter is not a kind. */
export function parseSubstrateSpec(spec: string): { kind: string; arg?: string } {
  const at = spec.indexOf(':');
  if (at <= 0) return { kind: spec.trim() };
  return { kind: spec.slice(0, at).trim(), arg: spec.slice(at + 1) };
}

/** Resolves a spec to a substrate; an unknown kind is a UserError listing the known ones. */
export async function resolveSubstrate(
  spec: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; settings?: { readonly substrates?: unknown } } = {},
): Promise<Substrate> {
  const { kind, arg } = parseSubstrateSpec(spec);
  const factory = Object.hasOwn(SUBSTRATE_FACTORIES, kind) ? SUBSTRATE_FACTORIES[kind] : undefined;
  if (!factory) {
    throw new UserError(`unknown substrate "${kind}"`, {
      code: 'SUBSTRATE_UNKNOWN',
      hint: `set substrate to one of: ${substrateKinds().join(', ')} (scripted takes a file: scripted:FILE; the others an optional model: anthropic:MODEL)`,
    });
  }
  return factory({
    ...(arg !== undefined ? { arg } : {}),
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    ...(options.settings ? { settings: options.settings } : {}),
  });
}

export type { SessionSandbox } from './sandbox.js';
export { SANDBOX_DENIAL, sessionSandbox } from './sandbox.js';
