import { join } from 'node:path';
import type { UiContext } from './context.js';
import { ledgerPaths } from './context.js';
import type { ViewId } from './layout.js';
import type { WatchTarget } from './live.js';

const all = (views: readonly ViewId[]) => () => views;

/** Views by file name; '' (the directory itself appeared or went) touches every view listed. */
const byName =
  (table: Record<string, readonly ViewId[]>, other: (name: string) => readonly ViewId[] = () => []) =>
  (name: string): readonly ViewId[] =>
    name === '' ? [...new Set(Object.values(table).flat())] : (table[name] ?? other(name));

/** Views by the name of a file in the home's top directory. */
const HOME_FILES: Record<string, readonly ViewId[]> = {
  'sessions.jsonl': ['sessions', 'wakeup'],
  'sessions.1.jsonl': ['sessions'],
  'sessions.json': ['sessions', 'wakeup'],
  'self-state.json': ['wakeup', 'sessions'],
  'firstlight.yaml': ['wakeup', 'captured'],
  'install-manifest.user.json': ['hosts'],
};

/** Views by the name of a file in the project's `.firstlight/`. */
const PROJECT_FILES: Record<string, readonly ViewId[]> = {
  'taskspace.json': ['wakeup'],
  'install-manifest.json': ['hosts'],
};

/**
 * What each view is made of, as directories to watch: memory and its trash, the event store and
 * the memory-use log, the session files and caches, the persona and guidance, the project's
 * state, and the runtime's journal and handoffs.
 */
export function watchTargets(context: UiContext): WatchTarget[] {
  const home = context.home;
  const project = join(context.project, '.firstlight');
  const ledger = ledgerPaths(context);
  return [
    { dir: join(home, 'memory'), views: all(['memory', 'wakeup', 'captured']) },
    { dir: join(home, 'capture'), views: all(['captured']) },
    { dir: join(home, 'memory', '.trash'), views: all(['memory']) },
    { dir: home, views: byName(HOME_FILES) },
    { dir: join(home, 'events'), views: all(['observations', 'sessions']) },
    { dir: join(home, 'memory-uses'), views: all(['memory', 'observations']) },
    {
      dir: join(home, 'cache'),
      views: (name) => (name === 'unreflected-surprises.json' ? ['wakeup', 'observations'] : []),
    },
    { dir: join(home, 'cache', 'bootstraps'), views: all(['sessions']) },
    { dir: join(home, 'cache', 'hook-sessions'), views: all(['sessions']) },
    { dir: join(home, 'persona'), views: all(['wakeup']), recursive: true },
    { dir: join(home, 'guidance'), views: all(['wakeup']), recursive: true },
    { dir: project, views: byName(PROJECT_FILES, (name) => (name === 'guidance' ? ['wakeup'] : [])) },
    { dir: join(project, 'guidance'), views: all(['wakeup']), recursive: true },
    { dir: ledger.journal, views: all(['runtime']) },
    { dir: ledger.handoffs, views: all(['runtime']) },
  ];
}
