import { dirname } from 'node:path';
import * as z from 'zod';
import { ConfigError } from '../core/index.js';
import {
  ACCESS_LEVELS,
  type Access,
  admits,
  canonicalSurface,
  FRESHNESS,
  HANDOFF_KINDS,
  MODES,
  type NamedRole,
  ROLE_POLICY,
  ROLES,
  type RolePolicy,
  type ToolClass,
} from './policy.js';
import type { ProfileSource, ResolvedDocument } from './sources.js';

/**
 * Persona profiles: the schema and its canonical form. Both spellings the canon uses are read
 * (`role`/`role_default`, `brand_discipline`/`brand_discipline_uri`,
 * `real_time_stream`/`real-time-stream`); the parsed profile carries one. Finding and reading
 * one (YAML, JSON or voice-canon markdown, by name, version or URI) is profile-load.ts.
 */

const accessSchema = z.enum(ACCESS_LEVELS);

const serverSchema = z
  .object({
    /**
     * How to start it. Without a command the entry is a rule only: how to classify the tools
     * of a server of this name that an invocation brings (`servers` in the request).
     */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    /** Which of the server's tools this persona uses (globs over tool names); default all. */
    tools: z.array(z.string().min(1)).optional(),
    /** Trust the server's `readOnlyHint` annotations (otherwise every unlisted tool is mutating). */
    trust_read_only_hint: z.boolean().default(false),
    /** The profile's own word on every tool of this server. */
    access: accessSchema.optional(),
    /** Per-tool classes; wins over `access` and hints. */
    classify: z.record(z.string(), accessSchema).default({}),
  })
  .strict();

const surfaceSchema = z
  .object({
    density: z.enum(['low', 'medium', 'high']).optional(),
    max_tokens_per_emission: z.number().int().positive().optional(),
    structured_output: z.enum(['required', 'optional']).optional(),
    narrative: z.boolean().optional(),
    bidirectional: z.boolean().optional(),
    /** Shorter retries after an over-dense emission (and JSON retries); default 2. */
    max_retries: z.number().int().min(0).max(5).optional(),
    /** A JSON Schema object: the fenced JSON's top-level `required` keys are checked. */
    output_schema: z.record(z.string(), z.unknown()).optional(),
    max_emissions_per_session: z.number().int().positive().optional(),
  })
  .strict();

const customRoleSchema = z
  .object({
    name: z.string().min(1),
    /** A named role to start from; its fields are defaults. */
    like: z.enum(ROLES).optional(),
    mode: z.enum(MODES).nullable().optional(),
    access: accessSchema.optional(),
    requires: z.array(z.enum(HANDOFF_KINDS)).optional(),
    produces: z.enum(HANDOFF_KINDS).nullable().optional(),
    freshness: z.enum(FRESHNESS).optional(),
  })
  .strict();

/**
 * The OS sandbox of read-only sessions on agent CLIs: `required` (the default) refuses such a
 * session where the sandbox cannot start; `off` runs it unconfined, and must say why.
 */
const sandboxSchema = z
  .object({
    mode: z.enum(['required', 'off']).default('required'),
    reason: z.string().trim().min(1).optional(),
    /** More places a confined session may write (`~/` is the home; relative: the project). */
    writable: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .refine((s) => s.mode !== 'off' || s.reason !== undefined, {
    message: 'say why read-only roles may run outside the OS sandbox (reason: "…") when mode is off',
    path: ['reason'],
  });

const profileSchema = z
  .object({
    persona: z.string().min(1),
    version: z.union([z.number(), z.string()]).default(1),
    description: z.string().optional(),
    /** Optional only in a markdown profile, whose body is then the prompt. */
    system_prompt_uri: z.string().min(1).optional(),
    role: z.string().min(1).optional(),
    role_default: z.string().min(1).optional(),
    roles: z.array(z.union([z.string().min(1), customRoleSchema])).optional(),
    mcp_servers: z
      .object({
        operational: z.array(z.string().min(1)).default([]),
        task_relevant: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .prefault({}),
    servers: z
      .record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only'), serverSchema)
      .default({}),
    /** Classes of tools that come from no server (an agent CLI's built-ins: Read, Bash, …). */
    classify: z.record(z.string(), accessSchema).default({}),
    knowledge_bases: z.array(z.string()).default([]),
    surface_profiles: z.record(z.string(), surfaceSchema).default({}),
    brand_discipline: z.string().optional(),
    brand_discipline_uri: z.string().optional(),
    inheritance: z.array(z.string()).default([]),
    retraction_conditions: z.union([z.string(), z.array(z.string())]).optional(),
    /** The substrate this persona runs on unless the invocation names one (`anthropic:MODEL`…). */
    substrate: z.string().min(1).optional(),
    sandbox: sandboxSchema.prefault({}),
    budget: z
      .object({
        max_turns: z.number().int().positive().optional(),
        max_tokens: z.number().int().positive().optional(),
        wall_time_ms: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

type RawProfile = z.infer<typeof profileSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type SurfaceProfile = z.infer<typeof surfaceSchema>;
export type SandboxConfig = z.infer<typeof sandboxSchema>;

/** A role the persona may take, resolved to its policy. */
export interface ProfileRole extends RolePolicy {
  readonly name: string;
  /** True for a canonical named role (its policy is the table's). */
  readonly named: boolean;
}

/** A loaded, validated persona profile in canonical form. */
export interface Profile {
  readonly persona: string;
  readonly version: number | string;
  readonly description?: string;
  readonly file: string;
  /** The profile's `system_prompt_uri`, or its own file when a markdown body is the prompt. */
  readonly systemPromptUri: string;
  /** Where the prompt's text comes from, resolved at load. */
  readonly prompt: PromptSource;
  /** The brand discipline's document, resolved at load (the prompt still carries only its URI). */
  readonly brandDiscipline?: ResolvedDocument;
  readonly roleDefault?: string;
  readonly roles: ReadonlyMap<string, ProfileRole>;
  readonly operational: readonly string[];
  readonly taskRelevant: readonly string[];
  readonly servers: Readonly<Record<string, ServerConfig>>;
  readonly classify: Readonly<Record<string, ToolClass>>;
  readonly knowledgeBases: readonly string[];
  /** Keyed by canonical (hyphenated) surface name. */
  readonly surfaces: Readonly<Record<string, SurfaceProfile>>;
  readonly brandDisciplineUri?: string;
  /** Which spelling gave it (errors name the field as written). */
  readonly brandDisciplineField?: 'brand_discipline_uri' | 'brand_discipline';
  readonly inheritance: readonly string[];
  readonly retractionConditions: readonly string[];
  readonly budget?: RawProfile['budget'];
  readonly substrate?: string;
  /** The OS sandbox of read-only sessions on agent CLIs. */
  readonly sandbox: SandboxConfig;
}

/** The system prompt's text: the home's mind contract, a document (a section of it), or the profile's own markdown body. */
export type PromptSource =
  | { readonly kind: 'contract' }
  | ({ readonly kind: 'document' } & ResolvedDocument)
  | { readonly kind: 'body'; readonly text: string };

/** Where profiles are looked for and what their URIs resolve through. */
export interface ProfileOptions {
  readonly home: string;
  readonly cwd?: string;
  /** `runtime.sources` of `firstlight.yaml`: directories, and URI prefixes mapped to directories. */
  readonly sources?: readonly ProfileSource[];
}

/** Older canon role names, read as the named role they became. */
const LEGACY_ROLES: Readonly<Record<string, NamedRole>> = {
  'detection-only': 'validator',
  detection_only: 'validator',
};

/** Validates a parsed profile document (the YAML's value) from `file`. */
export function parseProfile(raw: unknown, file: string, options: { readonly body?: string } = {}): Profile {
  const parsed = profileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path =
      issue.code === 'unrecognized_keys'
        ? [...issue.path, issue.keys[0] ?? ''].join('.')
        : issue.path.join('.') || '(top level)';
    const message = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
    throw invalid(file, path, message);
  }
  const p = parsed.data;
  if (!p.system_prompt_uri && !options.body) {
    throw invalid(
      file,
      'system_prompt_uri',
      'required: a file, a URI the sources resolve, or mind:contract',
      `set system_prompt_uri in ${file}, or write the profile as markdown whose body is the prompt (see docs/runtime.md, "Persona profiles")`,
    );
  }
  if (p.role && p.role_default && p.role !== p.role_default) {
    throw invalid(file, 'role_default', `"role" (${p.role}) and "role_default" (${p.role_default}) disagree`);
  }
  if (p.brand_discipline && p.brand_discipline_uri && p.brand_discipline !== p.brand_discipline_uri) {
    throw invalid(file, 'brand_discipline_uri', '"brand_discipline" and "brand_discipline_uri" disagree');
  }
  const roleDefaultRaw = p.role_default ?? p.role;
  const roleDefault = roleDefaultRaw ? (LEGACY_ROLES[roleDefaultRaw] ?? roleDefaultRaw) : undefined;
  const roles = new Map<string, ProfileRole>();
  const entries = p.roles ?? (roleDefault ? [roleDefault] : [...ROLES]);
  entries.forEach((entry, i) => {
    const role = resolveRole(entry, file, `roles.${i}`);
    roles.set(role.name, role);
  });
  if (roleDefault && !roles.has(roleDefault)) {
    if (!(ROLES as readonly string[]).includes(roleDefault)) {
      throw invalid(
        file,
        p.role_default ? 'role_default' : 'role',
        `"${roleDefaultRaw}" is not a role in "roles"`,
      );
    }
    roles.set(roleDefault, namedRole(roleDefault as NamedRole));
  }
  for (const [key, list] of [
    ['mcp_servers.operational', p.mcp_servers.operational],
    ['mcp_servers.task_relevant', p.mcp_servers.task_relevant],
  ] as const) {
    list.forEach((name, i) => {
      if (!p.servers[name]) {
        throw invalid(file, `${key}.${i}`, `server "${name}" is not defined under "servers"`);
      }
      if (!p.servers[name].command) {
        throw invalid(
          file,
          `servers.${name}.command`,
          `server "${name}" is listed in ${key} and has no command`,
        );
      }
    });
  }
  const surfaces: Record<string, SurfaceProfile> = {};
  for (const [name, surface] of Object.entries(p.surface_profiles))
    surfaces[canonicalSurface(name)] = surface;
  const profile: Profile = {
    persona: p.persona,
    version: p.version,
    ...(p.description ? { description: p.description } : {}),
    file,
    systemPromptUri: p.system_prompt_uri ?? file,
    prompt: promptSource(p.system_prompt_uri, options.body),
    ...(roleDefault ? { roleDefault } : {}),
    roles,
    operational: p.mcp_servers.operational,
    taskRelevant: p.mcp_servers.task_relevant.filter((name) => !p.mcp_servers.operational.includes(name)),
    servers: p.servers,
    classify: p.classify,
    knowledgeBases: p.knowledge_bases,
    surfaces,
    ...(p.brand_discipline_uri || p.brand_discipline
      ? {
          brandDisciplineUri: p.brand_discipline_uri ?? p.brand_discipline,
          brandDisciplineField: p.brand_discipline_uri ? 'brand_discipline_uri' : 'brand_discipline',
        }
      : {}),
    inheritance: p.inheritance,
    retractionConditions:
      p.retraction_conditions === undefined
        ? []
        : Array.isArray(p.retraction_conditions)
          ? p.retraction_conditions
          : [p.retraction_conditions],
    ...(p.budget ? { budget: p.budget } : {}),
    ...(p.substrate ? { substrate: p.substrate } : {}),
    sandbox: p.sandbox,
  };
  checkOperationalConflicts(profile);
  return profile;
}

/** The prompt's source before documents are resolved (loadProfile resolves a document's URI). */
function promptSource(uri: string | undefined, body: string | undefined): PromptSource {
  if (!uri) return { kind: 'body', text: body ?? '' };
  if (uri === 'mind:contract' || uri === 'firstlight://mind/contract') return { kind: 'contract' };
  return { kind: 'document', file: uri };
}

function namedRole(name: NamedRole): ProfileRole {
  return { name, named: true, ...ROLE_POLICY[name] };
}

function resolveRole(
  entry: string | z.infer<typeof customRoleSchema>,
  file: string,
  field: string,
): ProfileRole {
  if (typeof entry === 'string') {
    const name = LEGACY_ROLES[entry] ?? entry;
    if (!(ROLES as readonly string[]).includes(name)) {
      throw invalid(
        file,
        field,
        `"${entry}" is not a named role (${ROLES.join(', ')}); declare a custom role as {name, like, mode, access, requires, produces, freshness}`,
      );
    }
    return namedRole(name as NamedRole);
  }
  const named = (ROLES as readonly string[]).includes(entry.name);
  // A mode-bound named role keeps the table's configuration: loosening a validator would undo
  // the very separation the role exists for. Observer and general may be configured.
  if (named && entry.name !== 'observer' && entry.name !== 'general') {
    throw invalid(
      file,
      `${field}.name`,
      `"${entry.name}" is a mode-bound named role and cannot be reconfigured; give the custom role another name`,
    );
  }
  const base: RolePolicy = entry.like
    ? ROLE_POLICY[entry.like]
    : named
      ? ROLE_POLICY[entry.name as NamedRole]
      : ROLE_POLICY.general;
  const role: ProfileRole = {
    name: entry.name,
    named,
    mode: entry.mode === undefined ? base.mode : entry.mode,
    access: entry.access ?? base.access,
    requires: entry.requires ?? base.requires,
    produces: entry.produces === undefined ? base.produces : entry.produces,
    freshness: entry.freshness ?? base.freshness,
  };
  if (role.mode === 'validation' && role.access !== 'read_only') {
    throw invalid(
      file,
      `${field}.access`,
      'a role in validation mode must be read_only (a critic cannot be its own resolver)',
    );
  }
  return role;
}

/** Refuses a profile whose operational (never stripped) tools a role it allows may not hold. */
function checkOperationalConflicts(profile: Profile): void {
  profile.operational.forEach((name, i) => {
    const server = profile.servers[name]!;
    const classes = new Set<Access>(Object.values(server.classify));
    if (server.access) classes.add(server.access);
    else if (!server.trust_read_only_hint) classes.add('mutating');
    for (const role of profile.roles.values()) {
      for (const cls of classes) {
        if (!admits(role.access, cls)) {
          throw invalid(
            profile.file,
            `mcp_servers.operational.${i}`,
            `operational server "${name}" has ${cls} tools, which role "${role.name}" (${role.access}) may not hold, and operational servers are never stripped`,
            `classify the server's tools read_only (servers.${name}.access or .classify, or trust_read_only_hint with servers.${name}.tools narrowed to its read tools), move it to task_relevant, or drop role "${role.name}"`,
          );
        }
      }
    }
  });
}

export function invalid(file: string, field: string, message: string, hint?: string): ConfigError {
  return new ConfigError(`${file}: ${field}: ${message}`, {
    code: 'PROFILE_INVALID',
    file,
    field,
    hint: hint ?? `fix "${field}" in ${file} (see docs/runtime.md, "Persona profiles")`,
  });
}

/** The profile's directory, against which relative URIs resolve. */
export function profileDir(profile: Profile): string {
  return dirname(profile.file);
}
