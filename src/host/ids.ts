/**
 * The ids every host-facing surface is keyed by. Const tuples give the type, the CLI choices
 * and the help text from one place.
 */

/** Hosts firstlight can install into, in help order. */
export const HOST_IDS = ['claude', 'copilot', 'vscode', 'cursor', 'codex', 'gemini'] as const;
export type HostId = (typeof HOST_IDS)[number];

/** Hook events `firstlight hook EVENT` handles (canonical names; adapters map them per host). */
export const HOOK_EVENTS = [
  'session-start',
  'pre-tool-use',
  'post-tool-use',
  'post-tool-failure',
  'stop',
  'pre-compact',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Where install writes: project files only, or the user's global files too. */
export const SCOPES = ['project', 'user'] as const;
export type Scope = (typeof SCOPES)[number];

export function isHostId(value: string): value is HostId {
  return (HOST_IDS as readonly string[]).includes(value);
}

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}
