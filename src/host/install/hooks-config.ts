/** Our hook registrations inside a host's hooks file, for each file style. Other entries are never touched. */
import { HOOK_EVENTS } from '../ids.js';
import type { HookEntry, HookFileStyle, Surface } from '../types.js';
import { posixCommand, powershellCommand } from './command.js';
import { type JsonObject, jsonEqual, objectAt } from './json-config.js';

/** `hook EVENT` (`firstlight hook …`, `… main.js hook …`) or `hook.cjs EVENT`, the path maybe quoted. */
const OUR_EVENT = new RegExp(`\\bhook(?:\\.cjs'?)? (${HOOK_EVENTS.join('|')})\\b`);

/**
 * True for a command install writes (`… cli/hook.cjs EVENT`) or wrote before
 * (`… firstlight … hook EVENT`, `… cli/main.js … hook EVENT`), so a re-install replaces it.
 */
export function isOurHookCommand(command: unknown): boolean {
  return (
    typeof command === 'string' && OUR_EVENT.test(command) && /firstlight|main\.js|hook\.cjs/.test(command)
  );
}

/** A hooks surface with no entries: the file must hold none of ours (they live in another file). */
export function isHooksCleanup(surface: Surface): boolean {
  return surface.kind === 'hooks' && surface.entries.length === 0;
}

/** The JSON one entry takes in a file of this style. */
function entryJson(style: HookFileStyle, entry: HookEntry): JsonObject {
  switch (style) {
    case 'nested':
      return {
        ...(entry.matcher === undefined ? {} : { matcher: entry.matcher }),
        hooks: [
          {
            type: 'command',
            command: posixCommand(entry.argv),
            timeout: entry.timeout,
            ...(entry.async ? { async: true } : {}),
          },
        ],
      };
    case 'copilot':
      return {
        type: 'command',
        bash: posixCommand(entry.argv),
        powershell: powershellCommand(entry.argv),
        timeoutSec: entry.timeout,
      };
    case 'cursor':
      // The gate fails closed: Cursor blocks the tool when this hook crashes or times out.
      return {
        command: posixCommand(entry.argv),
        ...(entry.event === 'pre-tool-use' ? { failClosed: true } : {}),
      };
  }
}

/** Does this item of an event's array carry one of our commands? */
function isOurs(style: HookFileStyle, item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const o = item as JsonObject;
  if (style === 'nested') {
    return Array.isArray(o.hooks) && o.hooks.some((h) => isOurHookCommand((h as JsonObject)?.command));
  }
  return isOurHookCommand(o.command) || isOurHookCommand(o.bash);
}

/**
 * Makes `root` carry exactly `entries` as our registrations: an existing item of ours is
 * replaced where it stands (so a re-install changes nothing), a missing one appended, ours for
 * events no longer wanted removed. Returns whether anything changed.
 */
export function upsertHooks(root: JsonObject, style: HookFileStyle, entries: HookEntry[]): boolean {
  const before = structuredClone(root);
  if (entries.length === 0) {
    removeHooks(root, style);
    return !jsonEqual(before, root);
  }
  if (style !== 'nested' && root.version === undefined) root.version = 1;
  const hooks = objectAt(root, ['hooks'], true)!;
  const wanted = new Map(entries.map((e) => [e.hostEvent, entryJson(style, e)]));
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list) || wanted.has(event)) continue;
    const kept = list.filter((item) => !isOurs(style, item));
    if (kept.length !== list.length) hooks[event] = kept;
  }
  for (const [event, item] of wanted) {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const at = list.findIndex((x) => isOurs(style, x));
    const next = list.filter((x, i) => i === at || !isOurs(style, x));
    if (at < 0) next.push(item);
    else next[next.indexOf(list[at])] = item;
    hooks[event] = next;
  }
  return !jsonEqual(before, root);
}

/** Removes our registrations; drops event arrays and the `hooks` object that become empty. */
export function removeHooks(root: JsonObject, style: HookFileStyle): void {
  const hooks = objectAt(root, ['hooks'], false);
  if (!hooks) return;
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    const kept = list.filter((item) => !isOurs(style, item));
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (Object.keys(hooks).length === 0) delete root.hooks;
}

/** Host events that still carry a registration of ours (doctor, for a file that should have none). */
export function ourHookEvents(root: JsonObject, style: HookFileStyle): string[] {
  const hooks = objectAt(root, ['hooks'], false) ?? {};
  return Object.entries(hooks)
    .filter(([, list]) => Array.isArray(list) && list.some((item) => isOurs(style, item)))
    .map(([event]) => event);
}

/** Events whose registration of ours is missing or differs from `entries` (for doctor). */
export function missingHooks(root: JsonObject, style: HookFileStyle, entries: HookEntry[]): string[] {
  const hooks = objectAt(root, ['hooks'], false) ?? {};
  return entries
    .filter((e) => {
      const list = hooks[e.hostEvent];
      return !Array.isArray(list) || !list.some((item) => jsonEqual(item, entryJson(style, e)));
    })
    .map((e) => e.hostEvent);
}
