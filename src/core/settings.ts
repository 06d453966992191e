import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { captureSettingsSchema } from './capture-settings.js';
import { ConfigError } from './errors.js';
import { readTextIfExists } from './files.js';
import { redactConfigOf } from './redact/index.js';
import { runtimeSettingsSchema } from './runtime-settings.js';
import { substrateSettingsSchema } from './substrate-settings.js';

/**
 * `firstlight.yaml`: every key optional, every default here. Unknown keys are reported as
 * problems (a typo should not silently do nothing) but do not stop anything.
 */
export const settingsSchema = z
  .object({
    persona: z
      .object({ name: z.string().min(1).optional() })
      .strict()
      .prefault({}),
    packet: z
      .object({
        /**
         * Cap on the markdown rendering the SessionStart hook injects. At most 8,000:
         * Claude Code turns hook output over 10,000 characters into a file and a 2 KB preview,
         * and the host adds its own wrapping around ours.
         */
        markdown_max_chars: z
          .number()
          .int()
          .min(
            1000,
            'must be at least 1000 (below that the contract pointer and context do not fit); set 1000-8000',
          )
          .max(8000, 'must be at most 8000 (injected text stays under 8,000 characters); set 1000-8000')
          .default(8000),
      })
      .strict()
      .prefault({}),
    /** The REPL harness (`firstlight repl serve`). */
    repl: z
      .object({
        /** Default `execute` timeout in seconds (a call may pass its own `timeout`). */
        timeout_s: z.number().positive().max(86_400).default(120),
        /** Cap on each of stdout, stderr and the return value's text, in characters. */
        output_max_chars: z.number().int().min(1000).max(10_000_000).default(20_000),
        /** Seconds between the SIGINT of a timeout and the kill-and-restart. */
        interrupt_grace_s: z.number().positive().max(60).default(2),
        /** The Python 3 interpreter that runs the kernel. */
        python: z.string().min(1).default('python3'),
        /** `stdlib`: the embedded kernel; `jupyter`: an IPython kernel through jupyter_client. */
        kernel: z.enum(['stdlib', 'jupyter']).default('stdlib'),
        /** Save to `autosave` on shutdown and restore it on start. */
        autosave: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    guidance: z
      .object({
        /**
         * How the yiasou prompt carries the guidance docs: `inline` (their text), `reference`
         * (their names and how to load them), `auto` (reference for hosts whose model reads
         * MCP resources, inline for the rest).
         */
        yiasou: z.enum(['auto', 'inline', 'reference']).default('auto'),
      })
      .strict()
      .prefault({}),
    resumption: z
      .object({
        /** `clear`: the stream tail is injected into one session only; `keep`: until the next capture. */
        after_inject: z.enum(['keep', 'clear']).default('keep'),
        /** `agent`: one resumption per home; `session`: keyed by the host session id. */
        scope: z.enum(['agent', 'session']).default('agent'),
        /** Budget of the injected section; the tail is trimmed from the front to fit. */
        max_tokens: z.number().int().min(100).max(4000).default(300),
      })
      .strict()
      .prefault({}),
    gate: z
      .object({
        /** Tool-name globs the PreToolUse gate guards (default: a list of high-blast-radius tools). */
        tools: z.array(z.string().min(1)).optional(),
        /** More globs gated beside `tools` (or the default list): an MCP server's write tools, say. */
        add: z.array(z.string().min(1)).optional(),
        /** How much of a transcript (newest part) the gate scans for the bootstrap proof. */
        max_transcript_mb: z.number().int().min(1).max(1024).default(32),
      })
      .strict()
      .prefault({}),
    /** What a finished session's capture writes (see capture-settings.ts; `capture: off` opts out). */
    capture: captureSettingsSchema.prefault({}),
    /** The persona runtime's substrates (see substrate-settings.ts). */
    substrates: substrateSettingsSchema.prefault({}),
    /** The persona runtime: profile sources and the service (see runtime-settings.ts). */
    runtime: runtimeSettingsSchema.prefault({}),
    /**
     * The redactor (`false`, or `enabled`, `patterns`, `allow`): checked by redactConfigOf, the
     * same reader every writer's redactor uses, so its problems are reported below.
     */
    redact: z.unknown().optional(),
  })
  .passthrough();

export type Settings = z.infer<typeof settingsSchema>;

export interface LoadedSettings {
  settings: Settings;
  /** Human-readable problems (each invalid value falls back to its default). Empty when all is well. */
  problems: string[];
}

/** Defaults for every key. */
export function defaultSettings(): Settings {
  return settingsSchema.parse({});
}

/**
 * Reads and validates settings. Never throws for content problems: an invalid value yields its
 * default plus a problem naming the field and the fix, so a session still starts. `strict` turns problems into a
 * ConfigError for CLI commands that should refuse to run on a broken file.
 */
export function loadSettings(file: string, options: { strict?: boolean } = {}): LoadedSettings {
  const text = readTextIfExists(file);
  if (text === undefined) return { settings: defaultSettings(), problems: [] };
  const problems: string[] = [];
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    problems.push(`${file}: not valid YAML (${(error as Error).message.split('\n')[0]}); using defaults`);
    raw = {};
  }
  if (typeof raw !== 'object' || Array.isArray(raw) || raw === null) {
    problems.push(`${file}: top level must be a mapping of keys; using defaults`);
    raw = {};
  }
  // An invalid value falls back to its own default, not the whole file's: a typo in one key
  // must not silently reset every other setting.
  let candidate = structuredClone(raw) as Record<string, unknown>;
  let settings: Settings | undefined;
  for (let attempt = 0; attempt < 4 && !settings; attempt++) {
    const result = settingsSchema.safeParse(candidate);
    if (result.success) {
      settings = result.data;
      break;
    }
    for (const issue of result.error.issues) {
      const at = issue.path.join('.') || '(top level)';
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          problems.push(`${file}: ${at === '(top level)' ? key : `${at}.${key}`}: unknown key is ignored`);
          dropPath(candidate, [...issue.path, key]);
        }
      } else {
        problems.push(`${file}: ${at}: ${issue.message}; using the default`);
        if (issue.path.length === 0) candidate = {};
        else dropPath(candidate, issue.path);
      }
    }
  }
  settings ??= defaultSettings();
  for (const problem of redactConfigOf(raw).problems) problems.push(`${file}: ${problem}`);
  const known = new Set(Object.keys(settingsSchema.shape));
  for (const key of Object.keys(raw as object)) {
    if (!known.has(key)) problems.push(`${file}: unknown key "${key}" is ignored`);
  }
  if (options.strict && problems.length > 0) {
    throw new ConfigError(problems.join('; '), {
      code: 'CONFIG_INVALID',
      file,
      hint: `edit ${file}: see docs/settings.md for every key and its default`,
    });
  }
  return { settings, problems };
}

/**
 * Deletes the value at `path` (e.g. `packet.markdown_max_chars`) from a parsed YAML tree; a bad
 * list item drops the whole list (`gate.tools`), so the default replaces it rather than a hole.
 */
function dropPath(tree: Record<string, unknown>, fullPath: readonly PropertyKey[]): void {
  const firstIndex = fullPath.findIndex((key) => typeof key === 'number');
  const path = firstIndex > 0 ? fullPath.slice(0, firstIndex) : fullPath;
  let node: unknown = tree;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  if (typeof node === 'object' && node !== null) delete (node as Record<PropertyKey, unknown>)[path.at(-1)!];
}
