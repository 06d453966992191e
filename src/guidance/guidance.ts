import { dirname, join, resolve } from 'node:path';
import {
  homePaths,
  type Logger,
  loadSettings,
  memoByFiles,
  NotFoundError,
  redactorFor,
  silentLogger,
  UserError,
} from '../core/index.js';
import {
  assembleBootPrompt,
  BOOT_PROMPT_ALIASES,
  BOOT_PROMPT_NAME,
  type YiasouMode,
  yiasouModeFor,
} from './boot-prompt.js';
import {
  embeddedGuidanceDir,
  GUIDANCE_URI_PREFIX,
  type GuidanceDoc,
  type GuidanceLayer,
  type GuidanceSet,
  loadGuidance,
} from './docs.js';
import { findProject, PROJECT_STATE_DIR, type ProjectLocation, projectAt } from './project.js';
import {
  readTaskspace,
  type Taskspace,
  type TaskspacePatch,
  type TaskspaceRead,
  type TaskspaceWrite,
  writeTaskspace,
} from './taskspace-store.js';
import { listTaskspaces, newTaskspace, switchTaskspace, type TaskspaceEntry } from './taskspaces.js';

export interface GuidanceOptions {
  home: string;
  /** The server's working directory: the project is found by walking up from here. */
  projectDir?: string | undefined;
  /** A known project root (`--project DIR`): used as is, no walking. Wins over `projectDir`. */
  projectRoot?: string | undefined;
  /** Where the embedded docs live (tests point this elsewhere); default `assets/guidance/`. */
  embeddedDir?: string;
  log?: Logger;
  clock?: () => Date;
}

/** What `expand_reference(ref)` resolves to. */
export interface Expansion {
  ref: string;
  kind: 'boot-prompt' | 'guidance';
  /** The doc's resource URI (guidance only). */
  uri: string | null;
  text: string;
}

/** A packet section: the value, and why it is null or partial (becomes a degraded reason). */
export interface Section<T> {
  value: T | null;
  reason?: string;
}

/** A doc as the packet lists it (a type alias: the packet schema's loose objects accept it). */
export type GuidancePacketEntry = {
  uri: string;
  name: string;
  directive: string;
  title: string;
  source: GuidanceDoc['source'];
};

/**
 * Guidance docs (embedded, then `<home>/guidance/`, then `<project>/.firstlight/guidance/`), the
 * taskspace store and the `yiasou` boot prompt for one home and one project. Everything is read
 * per call (a few small files): overrides and the store may change under a running server.
 */
export class Guidance {
  readonly home: string;
  private readonly options: GuidanceOptions;
  private readonly log: Logger;

  constructor(options: GuidanceOptions) {
    this.home = options.home;
    this.options = options;
    this.log = options.log ?? silentLogger;
  }

  /**
   * The project this guidance serves, or null when none was given. The walk up is memoised on
   * the directories it visited: creating or removing a `.firstlight/` (or `.git`) changes its
   * parent's mtime, so the answer is recomputed exactly when it can have changed.
   */
  project(): ProjectLocation | null {
    if (this.options.projectRoot) return projectAt(this.options.projectRoot);
    if (this.options.projectDir) return this.projectMemo();
    return null;
  }

  private readonly projectMemo = memoByFiles(() => {
    const start = resolve(this.options.projectDir ?? '.');
    const visited: string[] = [];
    for (let dir = start; ; dir = dirname(dir)) {
      visited.push(dir);
      if (dirname(dir) === dir) break;
    }
    const value = findProject(start, { home: this.home });
    // The marker's own entries decide whether it is a home (persona/, memory/, firstlight.yaml).
    if (value.found === 'marker') visited.push(join(value.dir, PROJECT_STATE_DIR));
    return { value, files: visited };
  });

  /** Every doc after overrides, in boot-prompt order, plus the files that were skipped. */
  load(): GuidanceSet {
    const layers: GuidanceLayer[] = [
      { dir: this.options.embeddedDir ?? embeddedGuidanceDir(), source: 'embedded' },
      { dir: homePaths(this.home).guidance, source: 'home' },
    ];
    const project = this.project();
    if (project) layers.push({ dir: project.guidanceDir, source: 'project', root: project.dir });
    const set = loadGuidance(layers, {
      cacheDir: homePaths(this.home).cache,
      redactor: redactorFor(this.home),
    });
    for (const p of set.problems) this.log.warn(`guidance: skipped ${p.file}: ${p.problem}`);
    return set;
  }

  /** One doc by name (also accepts its URI or `name.md`); unknown names list the valid ones. */
  doc(ref: string): GuidanceDoc {
    const docs = this.load().docs;
    const doc = findDoc(docs, ref);
    if (!doc) {
      throw new NotFoundError(
        `no guidance doc named "${ref}"`,
        `use one of: ${docs.map((d) => d.name).join(', ') || '(no guidance docs are installed)'}`,
      );
    }
    return doc;
  }

  /** The taskspace store as read now; null without a project. Never throws. */
  taskspace(): TaskspaceRead | null {
    const project = this.project();
    return project ? readTaskspace(project.taskspaceFile) : null;
  }

  /** Writes the store (creating it in the project when missing). */
  async writeTaskspace(patch: TaskspacePatch): Promise<TaskspaceWrite> {
    return writeTaskspace(this.requireProject().taskspaceFile, patch, { now: this.options.clock });
  }

  /** Every taskspace of the project, the current one first. */
  listTaskspaces(): TaskspaceEntry[] {
    return listTaskspaces(this.requireProject().taskspaceFile);
  }

  /** Starts a new current taskspace; the previous one is kept, to switch back to. */
  newTaskspace(patch: TaskspacePatch): ReturnType<typeof newTaskspace> {
    return newTaskspace(this.requireProject().taskspaceFile, patch, { now: this.options.clock });
  }

  /** Makes the taskspace with `id` the current one. */
  switchTaskspace(id: string): ReturnType<typeof switchTaskspace> {
    return switchTaskspace(this.requireProject().taskspaceFile, id);
  }

  private requireProject(): ProjectLocation {
    const project = this.project();
    if (!project) {
      throw new UserError('no project directory to keep a taskspace in', {
        code: 'NO_PROJECT',
        hint: 'start the server from inside the project, or pass --project DIR',
      });
    }
    return project;
  }

  /**
   * The assembled `yiasou` text. Never throws for a missing or broken store: it omits the task.
   * `client` (the MCP client's name) picks the mode when `guidance.yiasou` is `auto`.
   */
  bootPrompt(collaborator?: string, client?: string): string {
    return assembleBootPrompt({
      docs: this.load().docs,
      taskspace: this.taskspace(),
      collaborator,
      mode: this.yiasouMode(client),
    });
  }

  /** `guidance.yiasou` from the home's settings, resolved for `client`. */
  yiasouMode(client?: string): YiasouMode {
    const setting = loadSettings(homePaths(this.home).settings).settings.guidance.yiasou;
    return yiasouModeFor(setting, client);
  }

  /** Every valid `expand_reference` argument. */
  references(): string[] {
    return [BOOT_PROMPT_NAME, ...BOOT_PROMPT_ALIASES, ...this.load().docs.map((d) => d.name)];
  }

  /** `yiasou`/`hi` → the boot prompt; a doc name (or URI) → that doc; anything else → NotFound. */
  expand(ref: string, collaborator?: string, client?: string): Expansion {
    const key = ref.trim().replace(/^\/+/, '').toLowerCase();
    if (key === BOOT_PROMPT_NAME || (BOOT_PROMPT_ALIASES as readonly string[]).includes(key)) {
      return { ref, kind: 'boot-prompt', uri: null, text: this.bootPrompt(collaborator, client) };
    }
    const docs = this.load().docs;
    const doc = findDoc(docs, key);
    if (!doc) {
      throw new NotFoundError(
        `unknown reference "${ref}"`,
        `use one of: ${[BOOT_PROMPT_NAME, ...BOOT_PROMPT_ALIASES, ...docs.map((d) => d.name)].join(', ')}`,
      );
    }
    return { ref, kind: 'guidance', uri: doc.uri, text: doc.text };
  }

  /** The packet's `guidance` section: uri, name and directive per doc; skipped files degrade it. */
  guidanceSection(): Section<GuidancePacketEntry[]> {
    const { docs, problems } = this.load();
    const value = docs.map((d) => ({
      uri: d.uri,
      name: d.name,
      directive: d.directive,
      title: d.title,
      source: d.source,
    }));
    if (problems.length === 0) return { value };
    const files = problems.map((p) => `${p.file} (${p.problem})`).join('; ');
    return { value, reason: `${problems.length} guidance file(s) skipped: ${files}` };
  }

  /** The packet's `taskspace` section: the state, null when absent, null + reason when unreadable. */
  taskspaceSection(): Section<Taskspace> {
    const read = this.taskspace();
    if (!read || read.status === 'missing' || read.status === 'empty') return { value: null };
    if (read.status === 'unreadable') {
      return {
        value: null,
        reason: `store ${read.file} is unreadable (${read.problem}); the yiasou prompt omits the task block until it is fixed or deleted`,
      };
    }
    return { value: read.taskspace };
  }
}

/** A Guidance for one home and project. */
export function createGuidance(options: GuidanceOptions): Guidance {
  return new Guidance(options);
}

/** The doc a reference names: by name, or by one of its aliases (`main.md` → collaboration-patterns). */
export function findDoc(docs: readonly GuidanceDoc[], ref: string): GuidanceDoc | undefined {
  const name = docName(ref);
  return docs.find((d) => d.name === name) ?? docs.find((d) => d.aliases.includes(name));
}

/** `firstlight://guidance/x`, `x.md`, `X` → `x`. */
function docName(ref: string): string {
  let name = ref.trim();
  if (name.startsWith(GUIDANCE_URI_PREFIX)) name = name.slice(GUIDANCE_URI_PREFIX.length);
  return name.replace(/\.md$/i, '').toLowerCase();
}
