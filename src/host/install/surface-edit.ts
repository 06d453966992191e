/**
 * Pure text transforms for one surface: apply (install), unapply (uninstall when the file
 * changed since install), inspect (doctor). Shared by every host; the surface is the data.
 */
import {
  BLOCK_VERSION,
  blockBody,
  blockVersions,
  CURSOR_RULE_FRONTMATTER,
  removeBlock,
  renderBlock,
  upsertBlock,
} from '../bootstrap-block.js';
import type { Surface } from '../types.js';
import { isHooksCleanup, missingHooks, ourHookEvents, removeHooks, upsertHooks } from './hooks-config.js';
import { editJsonText, type JsonObject, jsonEqual, objectAt, parseJsonConfig } from './json-config.js';
import { removeTomlServer, tomlParses, tomlServerCommand, upsertTomlServer } from './toml-config.js';

export interface AppliedEdit {
  text: string;
  notes: string[];
  /** Set when the file did not parse: the caller backs it up once before replacing it. */
  corrupt?: string;
}

/** The file's text with this surface installed. Returns `current` itself when nothing changes. */
export function applySurface(current: string | undefined, surface: Surface, serverName: string): AppliedEdit {
  const text = current ?? '';
  switch (surface.kind) {
    case 'ignore-line': {
      if (current === undefined || ignoresLine(current, surface.line)) return { text, notes: [] };
      const sep = current === '' || current.endsWith('\n') ? '' : '\n';
      return { text: `${current}${sep}${surface.line}\n`, notes: [] };
    }
    case 'instructions': {
      const block = renderBlock(BLOCK_VERSION, blockBody(surface.toolPrefix));
      if (current === undefined && surface.format === 'cursor-rule') {
        return { text: `${CURSOR_RULE_FRONTMATTER}\n${upsertBlock('', block)}`, notes: [] };
      }
      return { text: upsertBlock(text, block), notes: [] };
    }
    case 'mcp-json':
    case 'json-list':
    case 'hooks': {
      const parsed = parseJsonConfig(text);
      const root: JsonObject = parsed.ok ? structuredClone(parsed.value) : {};
      if (surface.kind === 'mcp-json') {
        const servers = objectAt(root, surface.keyPath, true)!;
        servers[serverName] = surface.entry;
        for (const [name, entry] of Object.entries(surface.more ?? {})) servers[name] = entry;
      } else if (surface.kind === 'json-list') {
        addToList(root, surface.keyPath, surface.values);
      } else {
        upsertHooks(root, surface.style, surface.entries);
      }
      if (!parsed.ok) return { text: `${JSON.stringify(root, null, 2)}\n`, notes: [], corrupt: parsed.error };
      if (jsonEqual(parsed.value, root)) return { text, notes: [] };
      return { text: editJsonText(text, parsed.value, root), notes: [] };
    }
    case 'mcp-toml': {
      const edit = upsertTomlServer(text, serverName, surface.entry, surface.features, surface.more);
      if (!edit.ok) {
        if (!tomlParses(text).ok)
          return { text: freshToml(serverName, surface), notes: [], corrupt: edit.error };
        throw new Error(edit.error);
      }
      return { text: edit.text === text ? text : edit.text, notes: edit.notes };
    }
  }
}

function freshToml(serverName: string, surface: Extract<Surface, { kind: 'mcp-toml' }>): string {
  const edit = upsertTomlServer('', serverName, surface.entry, surface.features, surface.more);
  return edit.ok ? edit.text : '';
}

/** The file's text with this surface's parts removed (everything else left as it is). */
export function unapplySurface(current: string, surface: Surface, serverName: string): string {
  switch (surface.kind) {
    case 'ignore-line':
      return current.replace(new RegExp(`^${escapeRegExp(surface.line)}\\n?`, 'm'), '');
    case 'instructions': {
      const removed = removeBlock(current);
      if (surface.format === 'cursor-rule' && removed.trim() === CURSOR_RULE_FRONTMATTER.trim()) return '';
      return removed;
    }
    case 'mcp-json':
    case 'json-list':
    case 'hooks': {
      const parsed = parseJsonConfig(current);
      if (!parsed.ok) return current;
      const root = structuredClone(parsed.value);
      if (surface.kind === 'mcp-json') {
        const servers = objectAt(root, surface.keyPath, false);
        for (const name of [serverName, ...Object.keys(surface.more ?? {})])
          if (servers && name in servers) delete servers[name];
      } else if (surface.kind === 'json-list') {
        removeFromList(root, surface.keyPath, surface.values);
      } else {
        removeHooks(root, surface.style);
        if (surface.style !== 'nested' && Object.keys(root).length === 1 && root.version === 1)
          delete root.version;
      }
      if (jsonEqual(parsed.value, root)) return current;
      return Object.keys(root).length === 0 ? '' : editJsonText(current, parsed.value, root);
    }
    case 'mcp-toml':
      return removeTomlServer(current);
  }
}

export interface SurfaceInspection {
  ok: boolean;
  detail: string;
  /** The configured server command, for mcp surfaces. */
  server?: { command: string; args: string[] };
}

/** What doctor sees in one surface. */
export function inspectSurface(
  current: string | undefined,
  surface: Surface,
  serverName: string,
): SurfaceInspection {
  if (current === undefined && isHooksCleanup(surface))
    return { ok: true, detail: 'no firstlight hooks here (as intended)' };
  if (current === undefined) return { ok: false, detail: `${surface.path} does not exist` };
  switch (surface.kind) {
    case 'ignore-line':
      return ignoresLine(current, surface.line)
        ? { ok: true, detail: `ignores ${surface.line}` }
        : { ok: false, detail: `does not ignore ${surface.line}` };
    case 'instructions': {
      const versions = blockVersions(current);
      if (versions.length === 0) return { ok: false, detail: 'no firstlight bootstrap block' };
      if (!versions.every((v) => v === BLOCK_VERSION)) {
        return {
          ok: false,
          detail: `block is v=${versions.join(',')}, current is v=${BLOCK_VERSION}: re-run install`,
        };
      }
      if (versions.length > 1)
        return { ok: false, detail: `${versions.length} blocks: re-run install to keep one` };
      return { ok: true, detail: `block v=${BLOCK_VERSION} present` };
    }
    case 'mcp-json': {
      const parsed = parseJsonConfig(current);
      if (!parsed.ok) return { ok: false, detail: `not valid JSON: ${parsed.error}` };
      const entry = objectAt(parsed.value, surface.keyPath, false)?.[serverName] as JsonObject | undefined;
      if (!entry) return { ok: false, detail: `no ${[...surface.keyPath, serverName].join('.')} entry` };
      const server = {
        command: String(entry.command ?? ''),
        args: Array.isArray(entry.args) ? entry.args.map(String) : [],
      };
      if (!jsonEqual(entry, surface.entry))
        return { ok: false, detail: 'server entry differs from what install writes: re-run install', server };
      const servers = objectAt(parsed.value, surface.keyPath, false) ?? {};
      for (const [name, wanted] of Object.entries(surface.more ?? {})) {
        if (!jsonEqual(servers[name], wanted))
          return {
            ok: false,
            detail: `server "${name}" missing or changed: re-run install --with-repl`,
            server,
          };
      }
      const names = [serverName, ...Object.keys(surface.more ?? {})].map((n) => `"${n}"`).join(', ');
      return { ok: true, detail: `server ${names} configured`, server };
    }
    case 'mcp-toml': {
      const parsed = tomlParses(current);
      if (!parsed.ok) return { ok: false, detail: `not valid TOML: ${parsed.error}` };
      const found = tomlServerCommand(parsed.value, serverName);
      if (!found) return { ok: false, detail: `no [mcp_servers.${serverName}] table` };
      const server = { command: found.command, args: found.args };
      if (!jsonEqual(server, { command: surface.entry.command, args: surface.entry.args }))
        return {
          ok: false,
          detail: 'server command or args differ from what install writes: re-run install',
          server,
        };
      if (found.enabled === false)
        return {
          ok: false,
          detail: `[mcp_servers.${serverName}] has enabled = false: Codex will not start it`,
          server,
        };
      for (const [name, wanted] of Object.entries(surface.more ?? {})) {
        const other = tomlServerCommand(parsed.value, name);
        if (
          !other ||
          !jsonEqual(
            { command: other.command, args: other.args },
            { command: wanted.command, args: wanted.args },
          )
        )
          return {
            ok: false,
            detail: `[mcp_servers.${name}] missing or changed: re-run install --with-repl`,
            server,
          };
      }
      const features = parsed.value.features as Record<string, unknown> | undefined;
      const notes: string[] = [];
      for (const flag of surface.features) {
        const value = features?.[flag];
        if (value === true) continue;
        const oldName = Object.entries(surface.renamedFeatures ?? {}).find(
          ([old, current]) => current === flag && features?.[old] === true,
        )?.[0];
        if (value === undefined && oldName) {
          notes.push(`[features] ${oldName} is the deprecated name of ${flag}: re-run install to rename it`);
          continue;
        }
        return {
          ok: false,
          detail:
            value === undefined
              ? `[features] ${flag} is not set: re-run install to switch Codex hooks on`
              : `[features] ${flag} = ${String(value)}: Codex hooks are off (no SessionStart packet, no gate); set it to true`,
          server,
        };
      }
      return {
        ok: true,
        detail: `[mcp_servers.${serverName}] configured; [features] ${surface.features.join(', ')} on${notes.map((n) => `; ${n}`).join('')}`,
        server,
      };
    }
    case 'json-list': {
      const parsed = parseJsonConfig(current);
      if (!parsed.ok) return { ok: false, detail: `not valid JSON: ${parsed.error}` };
      const list = listAt(parsed.value, surface.keyPath);
      const missing = surface.values.filter((v) => !list?.includes(v));
      if (missing.length > 0)
        return {
          ok: false,
          detail: `${surface.keyPath.join('.')} lacks ${missing.join(', ')}: re-run install`,
        };
      return {
        ok: true,
        detail: `${surface.keyPath.join('.')} has firstlight's ${surface.values.length} tools`,
      };
    }
    case 'hooks': {
      const parsed = parseJsonConfig(current);
      if (!parsed.ok) return { ok: false, detail: `not valid JSON: ${parsed.error}` };
      if (surface.entries.length === 0) {
        const stale = ourHookEvents(parsed.value, surface.style);
        return stale.length > 0
          ? {
              ok: false,
              detail: `holds firstlight hooks that now live elsewhere (${stale.join(', ')}): re-run install`,
            }
          : { ok: true, detail: 'no firstlight hooks here (as intended)' };
      }
      const missing = missingHooks(parsed.value, surface.style, surface.entries);
      if (missing.length > 0)
        return { ok: false, detail: `missing or outdated hooks: ${missing.join(', ')}` };
      return { ok: true, detail: `hooks ${surface.entries.map((e) => e.hostEvent).join(', ')} present` };
    }
  }
}

/** The array at `path` (its last key under the object path), when there is one. */
function listAt(root: JsonObject, path: string[]): unknown[] | undefined {
  const value = objectAt(root, path.slice(0, -1), false)?.[path.at(-1)!];
  return Array.isArray(value) ? value : undefined;
}

/** Appends the values the array does not hold yet, creating it (and its parents) when absent. */
function addToList(root: JsonObject, path: string[], values: string[]): void {
  const parent = objectAt(root, path.slice(0, -1), true)!;
  const key = path.at(-1)!;
  const list = Array.isArray(parent[key]) ? (parent[key] as unknown[]) : [];
  parent[key] = [...list, ...values.filter((v) => !list.includes(v))];
}

/** Takes the values out; an array (and objects) left empty by that go too. */
function removeFromList(root: JsonObject, path: string[], values: string[]): void {
  const parents = path.slice(0, -1);
  const parent = objectAt(root, parents, false);
  const key = path.at(-1)!;
  if (!parent || !Array.isArray(parent[key])) return;
  const kept = (parent[key] as unknown[]).filter((v) => !values.includes(v as string));
  if (kept.length > 0) {
    parent[key] = kept;
    return;
  }
  delete parent[key];
  for (let depth = parents.length; depth > 0; depth--) {
    const node = objectAt(root, parents.slice(0, depth), false);
    if (!node || Object.keys(node).length > 0) break;
    delete objectAt(root, parents.slice(0, depth - 1), false)![parents[depth - 1]!];
  }
}

/** The file already ignores the directory (`.firstlight`, `.firstlight/`, `/.firstlight/`). */
function ignoresLine(text: string, line: string): boolean {
  const bare = line.replace(/^\/|\/$/g, '');
  return text.split(/\r?\n/).some((l) => l.trim().replace(/^\/|\/$/g, '') === bare);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
