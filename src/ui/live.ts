/**
 * Which views changed on disk: `fs.watch` on directories (never on files: an editor's save and
 * every firstlight write is a new file renamed over the old one, which a watch on the file would
 * lose track of), each event mapped to the views it touches, collected over a short quiet
 * period and handed to the listeners once. A directory that does not exist yet is awaited by
 * watching its nearest existing ancestor; one removed while watched is awaited again the same way.
 */
import { existsSync, type FSWatcher, statSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../core/index.js';
import type { ViewId } from './layout.js';

export interface WatchTarget {
  dir: string;
  /** The views a change of `name` in `dir` touches (none: ignored). */
  views: (name: string) => readonly ViewId[];
  recursive?: boolean;
}

export interface LiveOptions {
  /** Changes are collected until this long passes without one. */
  quietMs?: number;
  /** ... but handed over at least this often while they keep coming. */
  maxWaitMs?: number;
  log: Logger;
}

type Listener = (views: ViewId[]) => void;

interface Armed {
  target: WatchTarget;
  watcher: FSWatcher | undefined;
  /** The ancestor watched while the directory is missing. */
  waitingOn: string | undefined;
}

export class LiveChanges {
  private readonly armed: Armed[];
  private readonly listeners = new Set<Listener>();
  private readonly pending = new Set<ViewId>();
  private quiet: NodeJS.Timeout | undefined;
  private firstPending = 0;
  private closed = false;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly log: Logger;

  constructor(targets: readonly WatchTarget[], options: LiveOptions) {
    this.quietMs = options.quietMs ?? 120;
    this.maxWaitMs = options.maxWaitMs ?? 1000;
    this.log = options.log;
    this.armed = targets.map((target) => ({ target, watcher: undefined, waitingOn: undefined }));
    for (const a of this.armed) this.arm(a);
  }

  /** Calls `listener` with each batch of changed views; returns the unsubscribe. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Marks views changed as if their files had (a write this process made itself). */
  touch(views: readonly ViewId[]): void {
    this.add(views);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.quiet);
    for (const a of this.armed) a.watcher?.close();
    this.listeners.clear();
  }

  private arm(a: Armed): void {
    if (this.closed) return;
    a.watcher?.close();
    a.watcher = undefined;
    a.waitingOn = undefined;
    const { dir } = a.target;
    if (isDir(dir)) {
      try {
        a.watcher = watch(dir, { recursive: a.target.recursive ?? false }, (_type, name) =>
          this.onEvent(a, name === null ? '' : String(name)),
        );
        a.watcher.on('error', () => this.rearmLater(a));
        return;
      } catch (error) {
        this.log.debug(`ui: cannot watch ${dir}: ${(error as Error).message}`);
      }
    }
    // Missing (or unwatchable): wait for it on the nearest directory that exists.
    let parent = dirname(dir);
    while (!isDir(parent) && dirname(parent) !== parent) parent = dirname(parent);
    try {
      a.waitingOn = parent;
      a.watcher = watch(parent, () => {
        if (isDir(dir)) {
          this.arm(a);
          // Files may have landed in it before the watch did.
          this.add(a.target.views(''));
        }
      });
      a.watcher.on('error', () => this.rearmLater(a));
    } catch (error) {
      this.log.debug(`ui: cannot watch ${parent}: ${(error as Error).message}`);
    }
  }

  private rearmLater(a: Armed): void {
    a.watcher?.close();
    a.watcher = undefined;
    setImmediate(() => this.arm(a));
  }

  private onEvent(a: Armed, name: string): void {
    // The directory itself was removed or replaced: wait for it again.
    if (!existsSync(a.target.dir)) {
      this.rearmLater(a);
      this.add(a.target.views(''));
      return;
    }
    this.add(a.target.views(name));
  }

  private add(views: readonly ViewId[]): void {
    if (this.closed || views.length === 0) return;
    if (this.pending.size === 0) this.firstPending = Date.now();
    for (const v of views) this.pending.add(v);
    clearTimeout(this.quiet);
    const waited = Date.now() - this.firstPending;
    this.quiet = setTimeout(() => this.flush(), Math.max(0, Math.min(this.quietMs, this.maxWaitMs - waited)));
  }

  private flush(): void {
    const views = [...this.pending];
    this.pending.clear();
    for (const listener of this.listeners) {
      try {
        listener(views);
      } catch (error) {
        this.log.warn(`ui: a change listener failed: ${(error as Error).message}`);
      }
    }
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
