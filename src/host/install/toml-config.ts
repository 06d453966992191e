/**
 * Codex's `config.toml`, edited as text so every byte of the user's file (comments, order,
 * formatting) survives: our server table goes in a marked region at the end, a missing feature
 * flag is one marked line under the existing `[features]` table. smol-toml validates the result.
 */
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';

const BEGIN = '# firstlight:begin (managed by `firstlight install`; edits here are replaced)';
const END = '# firstlight:end';
const LINE_MARK = ' # firstlight';
const REGION = /\n?# firstlight:begin[^\n]*\n[\s\S]*?# firstlight:end\n?/g;

export type TomlEdit = { ok: true; text: string; notes: string[] } | { ok: false; error: string };

export function tomlParses(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseToml(text) as Record<string, unknown> };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0] ?? 'invalid TOML' };
  }
}

/** Our server table plus any feature flags the file does not already have. */
export function upsertTomlServer(
  text: string,
  name: string,
  entry: Record<string, unknown>,
  features: string[],
  more: Record<string, Record<string, unknown>> = {},
): TomlEdit {
  const base = removeTomlServer(text);
  const parsed = tomlParses(base);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const notes: string[] = [];
  const servers = parsed.value.mcp_servers as Record<string, unknown> | undefined;
  const taken = [name, ...Object.keys(more)].find((n) => servers && n in servers);
  if (taken) {
    return {
      ok: false,
      error: `[mcp_servers.${taken}] is already defined outside firstlight's managed region`,
    };
  }
  const existing = parsed.value.features as Record<string, unknown> | undefined;
  let out = base;
  const regionFeatures: string[] = [];
  for (const flag of features) {
    if (existing?.[flag] === true) continue;
    if (existing && flag in existing) {
      notes.push(
        `[features] ${flag} is set to ${String(existing[flag])}; left as is (hooks stay off until it is true)`,
      );
      continue;
    }
    if (existing) {
      out = out.replace(/^\[features\][^\n]*$/m, (header) => `${header}\n${flag} = true${LINE_MARK}`);
    } else {
      regionFeatures.push(flag);
    }
  }
  const table = stringifyToml({ mcp_servers: { [name]: entry, ...more } }).trim();
  const featureTable =
    regionFeatures.length > 0 ? `\n\n[features]\n${regionFeatures.map((f) => `${f} = true`).join('\n')}` : '';
  const region = `${BEGIN}\n${table}${featureTable}\n${END}\n`;
  const sep = out.length === 0 ? '' : out.endsWith('\n') ? '\n' : '\n\n';
  out = `${out}${sep}${region}`;
  const check = tomlParses(out);
  if (!check.ok) return { ok: false, error: `the edited file would not parse: ${check.error}` };
  return { ok: true, text: out, notes };
}

/** Removes our region and marked lines. */
export function removeTomlServer(text: string): string {
  let out = text.replace(REGION, (match) => (match.startsWith('\n') ? '' : ''));
  out = out.replace(/^[^\n]*# firstlight\n/gm, '');
  return out;
}

/** The `[mcp_servers.<name>]` table's command, args and `enabled`, from a parsed config. */
export function tomlServerCommand(
  config: Record<string, unknown>,
  name: string,
): { command: string; args: string[]; enabled?: unknown } | null {
  const server = (config.mcp_servers as Record<string, Record<string, unknown>> | undefined)?.[name];
  if (!server || typeof server.command !== 'string') return null;
  return {
    command: server.command,
    args: Array.isArray(server.args) ? server.args.map(String) : [],
    ...('enabled' in server ? { enabled: server.enabled } : {}),
  };
}
