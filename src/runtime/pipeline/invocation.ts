import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { type Logger, loadSettings, memoByFiles, type Settings } from '../../core/index.js';
import type { Ledger } from '../ledger/index.js';
import type { Mode, RefusalReason } from '../policy.js';
import type { Profile, ProfileRole, SurfaceProfile } from '../profile.js';
import type { ProfileSource } from '../sources.js';
import type { Substrate } from '../substrates/types.js';
import type { Voice } from '../surfaces.js';
import type { InvokeMeta, InvokeRequest, InvokeResult } from '../types.js';

/**
 * What the stages share: the runtime's context, and one invocation as it moves through them
 * (its profile, role, mode and surface once resolved, its session id, the meta it returns).
 */

/** What every invocation of one runtime shares. */
export interface RuntimeContext {
  readonly home: string;
  /** The project root; its `.firstlight/` holds the embedded ledger and scratch. Without it the home does. */
  readonly project?: string;
  /** Where journal, handoffs, sessions, invocations and subscriptions are kept. */
  readonly ledger: Ledger;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly substrate?: Substrate | string;
  /** Where profiles and their documents resolve; default `runtime.sources` in the home's firstlight.yaml. */
  readonly sources?: readonly ProfileSource[];
  readonly log: Logger;
}

/** The embedded ledger's directory (and scratch's parent): `<project>/.firstlight`, else the home. */
export function ledgerDir(context: Pick<RuntimeContext, 'home' | 'project'>): string {
  return context.project ? join(context.project, '.firstlight') : context.home;
}

/** What the ledger's references are relative to: the project, else the home. */
export function ledgerRoot(context: Pick<RuntimeContext, 'home' | 'project'>): string {
  return context.project ?? context.home;
}

export function newSessionId(): string {
  return `s-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

const settingsMemo = new Map<string, () => Settings>();

/** The home's settings (substrates: and the rest), re-read only when firstlight.yaml changes. */
export function settingsOf(home: string): Settings {
  const file = join(home, 'firstlight.yaml');
  let memo = settingsMemo.get(file);
  if (!memo) {
    memo = memoByFiles(() => ({ value: loadSettings(file).settings, files: [file] }));
    settingsMemo.set(file, memo);
  }
  return memo();
}

/** The profile sources of a runtime: its own, else the settings' (directories made absolute). */
export function sourcesOf(context: Pick<RuntimeContext, 'home' | 'sources'>): readonly ProfileSource[] {
  if (context.sources) return context.sources;
  return settingsOf(context.home).runtime.sources.map((source) => ({
    ...(source.prefix ? { prefix: source.prefix } : {}),
    dir: expandDir(source.dir, context.home),
  }));
}

/** `~/x` under the user's home, a relative path under the firstlight home. */
export function expandDir(dir: string, home: string): string {
  if (dir === '~' || dir.startsWith('~/')) return join(homedir(), dir.slice(1));
  return isAbsolute(dir) ? dir : resolve(home, dir);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The meta being filled in as the stages run; `finishMeta` stamps the end and the timings. */
export type MetaDraft = Mutable<Omit<InvokeMeta, 'completed_at' | 'timings' | 'denials'>> & {
  denials: { tool: string; reason: string }[];
};

/** One invocation, resolved (stage 1) and moving through the rest. */
export interface Invocation {
  readonly context: RuntimeContext;
  readonly request: InvokeRequest;
  /** `performance.now()` at the start, for the timings. */
  readonly t0: number;
  readonly startedAt: Date;
  readonly ledger: Ledger;
  /** `<project>/.firstlight` (the home without a project): where scratch directories go. */
  readonly dataDir: string;
  readonly profile: Profile;
  readonly role: ProfileRole;
  readonly mode: Mode | null;
  readonly surface: string;
  readonly surfaceProfile: SurfaceProfile | undefined;
  readonly voice: Voice;
  /** The journal fields every row of this session carries. */
  readonly baseFields: Readonly<Record<string, string>>;
  readonly meta: MetaDraft;
}

/** The session id rows are journaled under: new, or the continued session's once admitted. */
export function sessionOf(inv: Invocation): string {
  return inv.meta.session_id;
}

export function finishMeta(inv: Invocation, extra: Partial<InvokeMeta>, substrateMs = 0): InvokeMeta {
  const total = performance.now() - inv.t0;
  return {
    ...inv.meta,
    ...extra,
    completed_at: new Date().toISOString(),
    timings: {
      total_ms: round(total),
      substrate_ms: round(substrateMs),
      overhead_ms: round(total - substrateMs),
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Refuses the invocation: one journal row (`C`, kind `refusal`) under the invocation's own new
 * session id — a refused `--continue` never writes into the session it named, which the row's
 * `continue` field records — and the result, exit 3 at the CLI.
 */
export async function refuse(inv: Invocation, reason: RefusalReason, detail: string): Promise<InvokeResult> {
  const at = new Date();
  await inv.ledger.appendJournal(
    [
      {
        kind: 'refusal',
        title: `${reason} (${inv.profile.persona} as ${inv.role.name})`,
        session: inv.meta.session_id,
        fields: { ...inv.baseFields, reason, detail, continue: inv.request.continue },
      },
    ],
    at,
  );
  return {
    status: 'refused',
    meta: finishMeta(inv, { refusal_reason: reason, detail }),
    output: null,
  };
}
