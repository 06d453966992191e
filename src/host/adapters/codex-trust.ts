/**
 * Whether Codex CLI will run firstlight's hooks. Codex skips, without a word, every hook it has
 * not been told to trust, and reads a project's `.codex/` only when the project is trusted; so
 * an installed hook is not yet a running one. This reads the same records Codex reads:
 *
 * - project trust: `[projects."<abs path>"] trust_level = "trusted"` in the user config.toml;
 * - hook trust: `[hooks.state."<abs hooks.json>:<event_snake>:<group>:<handler>"] trusted_hash =
 *   "sha256:…"` in the user config.toml (`enabled = false` turns one off), where the hash is
 *   SHA-256 over the handler's canonical JSON (keys sorted, no spaces):
 *   `{event_name, matcher?, hooks:[{type:"command", command, timeout, async}]}`. The `/hooks`
 *   screen writes these when the user trusts a hook; a hook changed since has another hash.
 *
 * Codex's own `codex app-server` `hooks/list` reports the same verdict (`trustStatus`); the
 * real-host tests compare the two.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readTextIfExists } from '../../core/index.js';
import { isOurHookCommand } from '../install/hooks-config.js';
import { parseJsonConfig } from '../install/json-config.js';
import { tomlParses } from '../install/toml-config.js';

export interface CodexHookTrust {
  ok: boolean;
  detail: string;
}

type Table = Record<string, unknown>;
const table = (v: unknown): Table | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Table) : undefined;

/** `SessionStart` → `session_start`. */
const snake = (event: string): string => event.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();

/** JSON with object keys sorted at every level, no whitespace (Codex's fingerprint form). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = table(value);
  if (!object) return JSON.stringify(value);
  const keys = Object.keys(object)
    .filter((k) => object[k] !== undefined && object[k] !== null)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
}

/** Events whose matcher Codex ignores (and leaves out of the hash). */
const MATCHERLESS = new Set(['stop', 'user_prompt_submit']);

/** The `trusted_hash` Codex expects for one command handler. */
export function codexHookHash(event: string, matcher: unknown, handler: Table): string {
  const eventName = snake(event);
  const timeout = typeof handler.timeout === 'number' ? Math.max(1, handler.timeout) : 600;
  const identity = {
    event_name: eventName,
    ...(typeof matcher === 'string' && !MATCHERLESS.has(eventName) ? { matcher } : {}),
    hooks: [
      {
        type: 'command',
        command: handler.command,
        timeout,
        async: handler.async === true,
        ...(typeof handler.statusMessage === 'string' ? { statusMessage: handler.statusMessage } : {}),
      },
    ],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** Our handlers in a hooks.json, each with the key Codex files its trust under. */
function ourHandlers(hooksPath: string, text: string): { event: string; key: string; hash: string }[] {
  const parsed = parseJsonConfig(text);
  const hooks = parsed.ok ? table(parsed.value.hooks) : undefined;
  const found: { event: string; key: string; hash: string }[] = [];
  for (const [event, groups] of Object.entries(hooks ?? {})) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      const handlers = table(group)?.hooks;
      if (!Array.isArray(handlers)) return;
      handlers.forEach((handler, h) => {
        const entry = table(handler);
        if (!entry || !isOurHookCommand(entry.command)) return;
        found.push({
          event,
          key: `${hooksPath}:${snake(event)}:${g}:${h}`,
          hash: codexHookHash(event, table(group)?.matcher, entry),
        });
      });
    });
  }
  return found;
}

/**
 * Will Codex run the hooks in `hooksPath`? `project` is set for a project install (its
 * `.codex/` is read only when the project is trusted).
 */
export function codexHookTrust(options: {
  hooksPath: string;
  codexHome: string;
  project?: string;
}): CodexHookTrust {
  const hooksText = readTextIfExists(options.hooksPath);
  if (hooksText === undefined) return { ok: false, detail: `${options.hooksPath} does not exist` };
  const handlers = ourHandlers(options.hooksPath, hooksText);
  if (handlers.length === 0) return { ok: false, detail: 'no firstlight hooks to trust: re-run install' };
  const configPath = join(options.codexHome, 'config.toml');
  const configText = readTextIfExists(configPath) ?? '';
  const parsed = tomlParses(configText);
  if (!parsed.ok) return { ok: false, detail: `${configPath} is not valid TOML: ${parsed.error}` };
  const config = parsed.value;
  const fixes: string[] = [];
  if (options.project) {
    const level = table(table(config.projects)?.[options.project])?.trust_level;
    if (level !== 'trusted')
      fixes.push(
        `Codex reads .codex/ only in trusted projects and this one is ${level === undefined ? 'not trusted yet' : `"${String(level)}"`}: trust it when Codex asks, or install with --scope user`,
      );
  }
  const state = table(table(config.hooks)?.state) ?? {};
  const untrusted: string[] = [];
  const disabled: string[] = [];
  for (const { event, key, hash } of handlers) {
    const record = table(state[key]);
    if (record?.enabled === false) disabled.push(event);
    else if (record?.trusted_hash !== hash) untrusted.push(event);
  }
  if (untrusted.length > 0)
    fixes.push(
      `Codex skips hooks it has not been told to trust, and ${untrusted.join(', ')} ${untrusted.length === 1 ? 'is' : 'are'} not (new, or changed since trusted): open /hooks in Codex and trust firstlight's (headless runs: codex exec --dangerously-bypass-hook-trust)`,
    );
  if (disabled.length > 0)
    fixes.push(
      `${disabled.join(', ')} ${disabled.length === 1 ? 'is' : 'are'} turned off in /hooks: turn on again there`,
    );
  return fixes.length > 0
    ? { ok: false, detail: fixes.join('; ') }
    : { ok: true, detail: `Codex trusts firstlight's ${handlers.length} hooks` };
}
