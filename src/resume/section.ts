import {
  cachedParse,
  homePaths,
  loadSettings,
  memoByFiles,
  parsedCacheFile,
  type Settings,
} from '../core/index.js';
import { fitToBudget } from './budget.js';
import {
  type CaptureRecord,
  type ReadResult,
  readSelfState,
  type SelfState,
  withSelfState,
} from './self-state.js';

export type ResumptionPolicy = Settings['resumption'];

/** The packet's `resumption` value: verbatim words, fitted to the budget. */
export type ResumptionView = {
  /** The agent's own last words, verbatim ("" when a clear-after-inject policy used them up). */
  stream_tail: string;
  /** The newest anchors that fit (at most five), oldest first. */
  anchors: { text: string; trigger: string }[];
  session_key: string;
  captured_at: string;
  /** What captured it: `internalize`, `cli`, `stop`, `pre-compact`. */
  source: string;
  /** The tail was cut from the front to fit `resumption.max_tokens`. */
  trimmed: boolean;
};

export interface LoadResumptionInput {
  home: string;
  /** The host session id, when known (keys per-session resumption and clear-after-inject). */
  sessionId: string | null;
  /** A real session start (bootstrap_session, the SessionStart hook); false for previews. */
  consume: boolean;
  now: Date;
  /** Defaults to the home's `firstlight.yaml` `resumption` section. */
  policy?: ResumptionPolicy;
}

/** A packet section: the value, or null with an optional reason (a degraded part). */
export interface ResumptionSection {
  value: ResumptionView | null;
  reason?: string;
}

/**
 * The resumption section for a session start. Re-reads self-state.json whenever its fingerprint
 * changed (another process may have just written it). Under `after_inject: clear`, a real
 * start hands the tail to that session: later starts of OTHER sessions no longer get it, while
 * a repeat start of the same session id (hook plus tool call, a double-fired SessionStart) does.
 * Anchors are never consumed: they belong to the arc, not to one wake-up.
 */
export async function loadResumption(input: LoadResumptionInput): Promise<ResumptionSection> {
  const file = homePaths(input.home).selfState;
  const policy = input.policy ?? loadSettings(homePaths(input.home).settings).settings.resumption;
  // Only a real start under `clear` writes; everything else reads without taking the lock.
  if (input.consume && policy.after_inject === 'clear') {
    return withSelfState(file, (read, write) => resolve(read, input, policy, file, write));
  }
  return resolve(readSelfStateCached(file, homePaths(input.home).cache), input, policy, file);
}

const readMemos = new Map<string, () => ReadResult>();

/**
 * {@link readSelfState}, re-parsed only when the file changed (bootstrap runs at every start):
 * memoised in a server, and kept in `cache/parsed-self-state.json` for the next process (the
 * SessionStart hook then loads no schema while the state is unchanged).
 */
function readSelfStateCached(file: string, cacheDir: string): ReadResult {
  let memo = readMemos.get(file);
  if (!memo) {
    const cacheFile = parsedCacheFile(cacheDir, 'self-state');
    memo = memoByFiles(() => ({
      value: cachedParse(file, cacheFile, (f) => readSelfState(f)),
      files: [file],
    }));
    readMemos.set(file, memo);
  }
  return memo();
}

async function resolve(
  read: ReadResult,
  input: LoadResumptionInput,
  policy: ResumptionPolicy,
  file: string,
  write?: (state: SelfState) => Promise<void>,
): Promise<ResumptionSection> {
  if (read.status === 'missing') return { value: null };
  if (read.status === 'malformed') {
    return {
      value: null,
      reason: `${file} is malformed (${read.problem}); fix it, or the next internalize moves it aside and starts fresh`,
    };
  }
  const state = read.state;
  let record: CaptureRecord | undefined;
  if (policy.scope === 'session') {
    // An unidentified start has no session of its own to resume.
    if (!input.sessionId) return { value: null };
    record = state.sessions[input.sessionId];
  } else {
    record = state;
  }
  if (!record) return { value: null };
  let tail = record.stream_tail;
  if (policy.after_inject === 'clear' && record.tail_injected) {
    const same = input.sessionId !== null && record.tail_injected.session_id === input.sessionId;
    if (!same) tail = '';
  }
  const fitted = fitToBudget(
    tail,
    record.anchors.map((a) => ({ text: a.text, trigger: a.trigger })),
    policy.max_tokens,
  );
  if (fitted.tail.trim() === '' && fitted.anchors.length === 0) return { value: null };
  if (write && !record.tail_injected && tail.trim() !== '') {
    record.tail_injected = { at: input.now.toISOString(), session_id: input.sessionId };
    await write(state);
  }
  return {
    value: {
      stream_tail: fitted.tail,
      anchors: fitted.anchors,
      session_key: record.session_key,
      captured_at: record.captured_at,
      source: record.source,
      trimmed: fitted.trimmed,
    },
  };
}
