import { join } from 'node:path';
import {
  describeLeftovers,
  estimateTokensForChars,
  homePaths,
  type Logger,
  loadSettingsCached,
  memoByFiles,
  type Settings,
  silentLogger,
  sweepLeftovers,
} from '../core/index.js';
import { type ProjectIdentity, projectIdentity } from '../guidance/index.js';
import { buildActiveContext } from './context.js';
import { assembleContract, type MindContract } from './contract.js';
import type { MemoryCatalog } from './memory/catalog.js';
import { type MemoryOverview, overviewOf } from './memory/overview.js';
import type { MemoryScope } from './memory/scope.js';
import { MemoryStore } from './memory/store.js';
import {
  readSurprises,
  type Surprise,
  surpriseLine,
  surprisesFile,
  topSurprises,
} from './observation/index.js';
import type {
  ActiveContext,
  BootstrapPacket,
  GuidanceEntry,
  Resumption,
  TaskspaceState,
} from './packet-schema.js';
import { PACKET_SCHEMA_VERSION } from './packet-version.js';
import { cognitionProtocol, HOST_LIMITATIONS } from './protocol.js';
import { readRelated, relevantMemories } from './relevant.js';
import { SessionLog } from './sessions.js';

/** Keys writeSoon remembers (a long-running HTTP server sees many sessions). */
const MAX_WRITTEN_KEYS = 1000;
/** How many unreflected surprises the packet names (the rest are counted). */
const SURPRISES_SHOWN = 3;

/** A section another part contributes to the packet; `reason` explains a null value. */
export interface SectionResult<T> {
  value: T | null;
  reason?: string;
}

/**
 * Providers for the packet sections owned by other parts (resumption, guidance, taskspace).
 * Each is called once per packet; a throw becomes a degraded reason, never a failed call.
 */
export interface PacketSections {
  resumption?: (input: {
    sessionId: string | null;
    consume: boolean;
    /** The packet's clock reading. */
    now: Date;
    /** The mind's settings, as the packet reads them (the resumption policy lives there). */
    settings: Settings;
  }) => SectionResult<Resumption> | Promise<SectionResult<Resumption>>;
  guidance?: () => SectionResult<GuidanceEntry[]>;
  taskspace?: () => SectionResult<TaskspaceState>;
}

export interface MindOptions {
  home: string;
  log?: Logger;
  clock?: () => Date;
  /** Long-running servers watch memory/ for in-place edits; one-shot commands do not. */
  watchMemory?: boolean;
  /** The other parts' packet sections; a missing provider leaves its section null. */
  sections?: PacketSections;
  /** The names of the server's tools, listed as `available_mind_tools` (none when omitted). */
  toolNames?: readonly string[];
  /**
   * Working directory for project-scoped state (taskspace) and memory (the project's own and the
   * global memories); defaults to process.cwd() at the edge. Without it the mind sees global memories only.
   */
  projectDir?: string;
  /** The project's identity, when the caller already knows it (else found from projectDir on first use). */
  project?: ProjectIdentity | null;
  /**
   * One-shot SessionStart: take memory's overview from the last scan while memory/'s mtime is
   * unchanged instead of stating every memory (see MemoryStore.overview). Servers leave it off.
   */
  quickMemoryOverview?: boolean;
  /**
   * Sweep what a crashed writer left (default true). The SessionStart hook passes false: the
   * server the host starts beside it sweeps, and walking a home of 10,000 memories was a fifth
   * of the hook's time.
   */
  sweepLeftovers?: boolean;
}

export interface BootstrapOptions {
  sessionId?: string | null;
  /** Identifies the connection when no session id was given (one ledger entry per key). */
  sessionKey?: string;
  /** `packet` previews without recording a session or consuming a clear-after-inject tail. */
  preview?: boolean;
  /** When the calling client connected (servers): ties an id-less call to a hook-recorded session. */
  connectedAt?: Date;
}

/**
 * The mind: one home's contract, memory and context, and the packet built from them. One
 * instance per server process; every method is safe to call concurrently with other processes
 * using the same home.
 */
export class Mind {
  readonly home: string;
  readonly paths: ReturnType<typeof homePaths>;
  readonly memory: MemoryStore;
  readonly log: Logger;
  readonly clock: () => Date;
  readonly projectDir: string | undefined;
  private readonly ledger: SessionLog;
  private readonly sections: PacketSections;
  private readonly toolNames: readonly string[];
  // bootstrap_session runs at every session start: these re-read only files that changed.
  private readonly contractMemo: () => MindContract;
  private readonly settingsMemo: () => { settings: Settings; problems: string[] };
  private readonly surprisesMemo: () => Surprise[];
  private warming: Promise<void> | undefined;
  /** Writes begun after an answer went out (writeSoon), until they finish. */
  private readonly afterAnswer = new Set<Promise<void>>();
  /** When each keyed writeSoon last began (see writeSoon's `once`). */
  private readonly writtenAt = new Map<string, number>();
  private readonly quickOverview: boolean;
  private projectMemo: { value: ProjectIdentity | null } | undefined;
  /** Said once, in the next packet: what the start swept after a crash. */
  private readonly startupNotices: string[] = [];

  constructor(options: MindOptions) {
    this.home = options.home;
    this.paths = homePaths(options.home);
    this.log = options.log ?? silentLogger;
    this.clock = options.clock ?? (() => new Date());
    this.projectDir = options.projectDir;
    if (options.project !== undefined) this.projectMemo = { value: options.project };
    this.memory = new MemoryStore(this.paths.memory, {
      scope: () => this.memoryScope(),
      cacheFile: join(this.paths.cache, 'memory-entries.json'),
      overviewFile: join(this.paths.cache, 'memory-overview.json'),
      manifestFile: join(this.paths.cache, 'memory-manifest.json'),
      watch: options.watchMemory ?? false,
    });
    this.ledger = new SessionLog(options.home, { onProblem: (message) => this.log.warn(message) });
    // What a process killed mid-write left (temp files, stale locks): swept and said once.
    const swept =
      options.sweepLeftovers === false
        ? []
        : sweepLeftovers([
            options.home,
            ...(options.projectDir ? [join(options.projectDir, '.firstlight')] : []),
          ]);
    if (swept.length > 0) {
      const notice = describeLeftovers(swept, options.home);
      this.log.warn(notice);
      this.startupNotices.push(notice);
    }
    this.quickOverview = options.quickMemoryOverview ?? false;
    this.sections = options.sections ?? {};
    this.toolNames = options.toolNames ?? [];
    this.contractMemo = memoByFiles(() => {
      const contract = assembleContract(this.paths.persona);
      // A missing include becomes available when created: watch the persona dir itself too.
      const files = new Set([this.paths.persona]);
      for (const f of contract.files)
        files.add(join(this.paths.persona, f, '..')).add(join(this.paths.persona, f));
      return { value: contract, files: [...files] };
    });
    // Through the parsed-file cache: a one-shot hook then loads no YAML parser or schema.
    this.settingsMemo = memoByFiles(() => ({
      value: loadSettingsCached(this.paths.settings, this.paths.cache),
      files: [this.paths.settings],
    }));
    this.surprisesMemo = memoByFiles(() => ({
      value: readSurprises(this.home),
      files: [surprisesFile(this.home)],
    }));
  }

  /** Settings, re-read when the file changes (a user may edit them while servers run). */
  settings(): { settings: Settings; problems: string[] } {
    return this.settingsMemo();
  }

  /** The assembled contract; `get_system_prompt` and the packet share this loader. */
  contract(): MindContract {
    return this.contractMemo();
  }

  catalog(): MemoryCatalog {
    return overviewOf(this.memory.snapshot(), this.memoryScope()).catalog;
  }

  /**
   * The project this mind works in (found from projectDir once: a `.firstlight/project.json`
   * id, else the git root commit), or null outside any project. With `create`, a project
   * without an id yet (no commit, no git) gets one written into `.firstlight/project.json`.
   */
  project(options: { create?: boolean } = {}): ProjectIdentity | null {
    if (this.projectMemo && (this.projectMemo.value || !options.create)) return this.projectMemo.value;
    const value = this.projectDir
      ? projectIdentity(this.projectDir, { home: this.home, ...(options.create ? { create: true } : {}) })
      : null;
    this.projectMemo = { value };
    return value;
  }

  /** What recall and the packet show: this project's memories and the global ones. */
  memoryScope(): MemoryScope {
    const project = this.project();
    return project ? { id: project.id, name: project.name } : null;
  }

  /** The active context, recording the session start unless previewing. */
  async context(options: BootstrapOptions = {}): Promise<ActiveContext> {
    return this.contextWith(this.memoryOverview(), options);
  }

  private memoryOverview(): MemoryOverview {
    return this.memory.overview({ quick: this.quickOverview });
  }

  private async contextWith(overview: MemoryOverview, options: BootstrapOptions): Promise<ActiveContext> {
    const sessionId = options.sessionId ?? null;
    const now = this.clock();
    const key = options.sessionKey ?? sessionId ?? 'anonymous';
    const at = { connectedAt: options.connectedAt };
    const lastSession = options.preview
      ? this.ledger.peekPrevious(key, sessionId, at)
      : await this.ledger.previousFor(key, sessionId, now, at);
    return buildActiveContext({
      home: this.home,
      sessionId,
      people: overview.people,
      lastSession,
      now,
    });
  }

  /** The bootstrap packet, schema v1. Never throws for an unavailable part: it degrades. */
  async bootstrap(options: BootstrapOptions = {}): Promise<BootstrapPacket> {
    const sessionId = options.sessionId ?? null;
    const reasons: string[] = [];
    // A reason is a stable string a client can match (`"mind contract unavailable"`); what caused
    // it goes beside it in `causes`, keyed by the reason.
    const causes: Record<string, string> = {};
    const degrade = (reason: string, cause: string) => {
      reasons.push(reason);
      causes[reason] = cause;
    };
    const contract = this.contract();
    if (!contract.available) degrade('mind contract unavailable', contract.error ?? 'unknown');
    const overview = this.memoryOverview();
    if (!overview.present) degrade('memory unavailable', 'memory/ does not exist in the home');
    if (overview.problemCount > 0) {
      reasons.push(
        `memory: ${overview.problemCount} file(s) skipped as unreadable or malformed (see list_memory_files)`,
      );
    }
    const { settings, problems } = this.settings();
    for (const problem of problems) reasons.push(`settings: ${problem}`);
    const resumption = await this.section('resumption', reasons, causes, () =>
      this.sections.resumption?.({ sessionId, consume: !options.preview, now: this.clock(), settings }),
    );
    const guidance = await this.section('guidance', reasons, causes, () => this.sections.guidance?.());
    const taskspace = await this.section('taskspace', reasons, causes, () => this.sections.taskspace?.());
    const tools = [...this.toolNames].sort();
    const packet: BootstrapPacket = {
      resumption,
      schema_version: PACKET_SCHEMA_VERSION,
      required_first_call: 'bootstrap_session',
      session_id: sessionId,
      mind_contract: contract.text,
      mind_contract_available: contract.available,
      available_mind_tools: tools,
      cognition_protocol: cognitionProtocol(tools),
      context: await this.contextWith(overview, options),
      memory_catalog: overview.catalog,
      guidance,
      taskspace,
      degraded_mode: { mind_contract_available: contract.available, reasons, causes },
      host_limitations: [...HOST_LIMITATIONS],
      budget: { chars: 0, tokens_estimate: 0 },
    };
    const relevant = relevantMemories(
      overview.instructions,
      readRelated(this.paths.cache, this.paths.memory, this.memoryScope()),
    );
    if (relevant) packet.relevant_memories = relevant;
    const surprises = this.surprisesMemo();
    if (surprises.length > 0) {
      packet.unreflected_surprises = {
        count: surprises.length,
        top: topSurprises(surprises, SURPRISES_SHOWN).map(surpriseLine),
      };
    }
    reasons.push(...this.ledger.problems());
    if (!options.preview) reasons.push(...this.startupNotices.splice(0));
    return withBudget(packet);
  }

  private async section<T>(
    name: string,
    reasons: string[],
    causes: Record<string, string>,
    provide: () => SectionResult<T> | Promise<SectionResult<T>> | undefined,
  ): Promise<T | null> {
    try {
      const result = await provide();
      if (!result) return null;
      if (result.reason) reasons.push(`${name}: ${result.reason}`);
      return result.value;
    } catch (error) {
      reasons.push(`${name} unavailable`);
      causes[`${name} unavailable`] = (error as Error).message;
      return null;
    }
  }

  /**
   * Loads and caches what the first packet needs (memory entries, contract, settings, the other
   * parts' sections) by building a preview packet and dropping it. Servers call it once a client
   * has initialized: at 10,000 memories the first load costs hundreds of ms, which the host's
   * own startup then hides instead of the first bootstrap_session.
   */
  warm(): Promise<void> {
    this.warming ??= this.bootstrap({ preview: true }).then(
      () => undefined,
      (error: Error) => this.log.debug(`warm-up failed (the first call will retry): ${error.message}`),
    );
    return this.warming;
  }

  /**
   * Runs `write` after the current answer has gone out (the next turn of the event loop), logging
   * a failure; `settle()` waits for every such write, so a server flushes them before it exits.
   * With `once`, a write under the same key that began less than `unlessWrittenWithinMs` ago
   * (by the mind's clock) makes this one unneeded.
   */
  writeSoon(
    what: string,
    write: () => Promise<void>,
    once?: { key: string; unlessWrittenWithinMs: number },
  ): void {
    if (once) {
      const now = this.clock().getTime();
      const last = this.writtenAt.get(once.key);
      if (last !== undefined && now >= last && now - last < once.unlessWrittenWithinMs) return;
      this.writtenAt.delete(once.key); // re-inserted last: the oldest key is the first dropped
      this.writtenAt.set(once.key, now);
      if (this.writtenAt.size > MAX_WRITTEN_KEYS) this.writtenAt.delete(this.writtenAt.keys().next().value!);
    }
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(write)
      .catch((error: Error) => {
        if (once) this.writtenAt.delete(once.key); // failed: the next call tries again
        this.log.warn(`could not ${what}: ${error.message}`);
      })
      .finally(() => this.afterAnswer.delete(done));
    this.afterAnswer.add(done);
  }

  /** Forgets when a keyed writeSoon last began: the next one with that key writes whatever the interval. */
  forgetWrite(key: string): void {
    this.writtenAt.delete(key);
  }

  /** Waits for the writes `writeSoon` started. */
  async settle(): Promise<void> {
    while (this.afterAnswer.size > 0) await Promise.all([...this.afterAnswer]);
  }

  /** Stops watching. */
  close(): void {
    this.memory.close();
  }
}

/**
 * Fills `budget` with the packet's own serialized size, in one serialization: the two numbers
 * change the length only by their digit counts, so the fixed point is found arithmetically.
 */
function withBudget(packet: BootstrapPacket): BootstrapPacket {
  packet.budget = { chars: 0, tokens_estimate: 0 };
  const base = JSON.stringify(packet).length - 2; // without the two "0" digits
  let chars = base + 2;
  for (let i = 0; i < 4; i++) {
    const next = base + String(chars).length + String(estimateTokensForChars(chars)).length;
    if (next === chars) break;
    chars = next;
  }
  packet.budget = { chars, tokens_estimate: estimateTokensForChars(chars) };
  return packet;
}
