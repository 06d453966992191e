/**
 * Building a real substrate from a spec (`anthropic`, `anthropic:MODEL`, `openai-compatible:MODEL`,
 * `claude-cli`, `codex-cli:MODEL`, `gemini-cli`, `command:PROGRAM ARGS…`), the environment and
 * the `substrates:` settings. Precedence: the spec's model, then the settings, then the
 * environment (`ANTHROPIC_MODEL`…), then a default; a base URL from the settings, then the
 * environment (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`), then the vendor's.
 */
import { type SubstrateSettings, substrateSettingsSchema, UserError } from '../../core/index.js';
import { anthropicSubstrate } from './anthropic.js';
import { claudeCliSubstrate } from './claude-cli.js';
import { codexCliSubstrate } from './codex-cli.js';
import { commandSubstrate } from './command.js';
import { geminiCliSubstrate } from './gemini-cli.js';
import { openAiCompatibleSubstrate } from './openai-compatible.js';
import type { RetryPolicy } from './retry.js';
import { bwrapSandbox } from './sandbox.js';
import type { Substrate } from './types.js';

/** Every substrate kind built here (the scripted substrate is the runtime's own). */
export const REAL_SUBSTRATE_KINDS = [
  'anthropic',
  'openai-compatible',
  'claude-cli',
  'codex-cli',
  'gemini-cli',
  'command',
] as const;
export type RealSubstrateKind = (typeof REAL_SUBSTRATE_KINDS)[number];

export const DEFAULT_MODELS = { anthropic: 'claude-sonnet-4-5', 'openai-compatible': 'gpt-5' } as const;

export interface SubstrateContext {
  /** The environment keys and base URLs are read from, and agent CLIs run with. */
  readonly env?: NodeJS.ProcessEnv;
  /** Loaded settings, or just their `substrates` part (validated here). */
  readonly settings?: { readonly substrates?: unknown };
  /** Where agent CLIs run (the project). */
  readonly cwd?: string;
}

/** `kind[:arg]`, split at the first colon. */
function splitSpec(spec: string): { kind: string; arg: string | undefined } {
  const colon = spec.indexOf(':');
  return colon === -1
    ? { kind: spec.trim(), arg: undefined }
    : { kind: spec.slice(0, colon).trim(), arg: spec.slice(colon + 1).trim() || undefined };
}

export function isRealSubstrateKind(kind: string): kind is RealSubstrateKind {
  return (REAL_SUBSTRATE_KINDS as readonly string[]).includes(kind);
}

/** Parsed `substrates:` by the settings object it came from (a runtime reuses its settings). */
const parsedSettings = new WeakMap<object, SubstrateSettings>();

function substrateSettings(context: SubstrateContext): SubstrateSettings {
  const raw = context.settings?.substrates;
  const known = raw !== null && typeof raw === 'object' ? parsedSettings.get(raw) : undefined;
  if (known) return known;
  const parsed = substrateSettingsSchema.safeParse(raw ?? {});
  if (parsed.success && raw !== null && typeof raw === 'object') parsedSettings.set(raw, parsed.data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new UserError(`firstlight.yaml substrates.${issue.path.join('.')}: ${issue.message}`, {
    code: 'CONFIG_INVALID',
    hint: 'fix the substrates: section of firstlight.yaml (see docs/substrates.md)',
  });
}

/** Builds one of the real substrates; throws a UserError (exit 2) for an unknown kind. */
export function createSubstrate(spec: string, context: SubstrateContext = {}): Substrate {
  const { kind, arg } = splitSpec(spec);
  const env = context.env ?? process.env;
  const cwd = context.cwd ?? process.cwd();
  const settings = substrateSettings(context);
  const retry: RetryPolicy = {
    maxAttempts: settings.retry.max_attempts,
    baseDelayMs: settings.retry.base_delay_ms,
    maxDelayMs: settings.retry.max_delay_ms,
  };
  const sandbox = bwrapSandbox(settings.sandbox.command ?? 'bwrap');
  const pricingOf = (p: { input_per_mtok: number; output_per_mtok: number } | undefined) =>
    p ? { pricing: { inputPerMTok: p.input_per_mtok, outputPerMTok: p.output_per_mtok } } : {};
  switch (kind) {
    case 'anthropic': {
      const s = settings.anthropic;
      const apiKeyEnv = s.api_key_env ?? 'ANTHROPIC_API_KEY';
      return anthropicSubstrate({
        model: arg ?? s.model ?? env.ANTHROPIC_MODEL ?? DEFAULT_MODELS.anthropic,
        baseUrl: s.base_url ?? env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
        apiKey: env[apiKeyEnv] || undefined,
        apiKeyEnv,
        keyRequired: true,
        maxOutputTokens: s.max_output_tokens,
        retry,
        ...pricingOf(s.pricing),
      });
    }
    case 'openai-compatible': {
      const s = settings.openai_compatible;
      const apiKeyEnv = s.api_key_env ?? 'OPENAI_API_KEY';
      const baseUrl = s.base_url ?? env.OPENAI_BASE_URL;
      return openAiCompatibleSubstrate({
        model: arg ?? s.model ?? env.OPENAI_MODEL ?? DEFAULT_MODELS['openai-compatible'],
        baseUrl: baseUrl ?? 'https://api.openai.com/v1',
        apiKey: env[apiKeyEnv] || undefined,
        apiKeyEnv,
        // A server of your own (Ollama, vLLM, llama.cpp) usually takes no key.
        keyRequired: baseUrl === undefined,
        maxOutputTokens: s.max_output_tokens,
        retry,
        api: s.api,
        ...pricingOf(s.pricing),
      });
    }
    case 'claude-cli':
      return claudeCliSubstrate({
        command: settings.claude_cli.command ?? 'claude',
        ...(arg || settings.claude_cli.model ? { model: arg ?? settings.claude_cli.model } : {}),
        cwd,
        env,
        sandbox,
      });
    case 'codex-cli':
      return codexCliSubstrate({
        command: settings.codex_cli.command ?? 'codex',
        ...(arg || settings.codex_cli.model ? { model: arg ?? settings.codex_cli.model } : {}),
        cwd,
        env,
        sandbox,
      });
    case 'gemini-cli':
      return geminiCliSubstrate({
        command: settings.gemini_cli.command ?? 'gemini',
        ...(arg || settings.gemini_cli.model ? { model: arg ?? settings.gemini_cli.model } : {}),
        cwd,
        env,
        sandbox,
      });
    case 'command': {
      const argv = arg ? arg.split(/\s+/) : (settings.command.argv ?? []);
      return commandSubstrate({ argv, cwd, env });
    }
    default:
      throw new UserError(`unknown substrate "${kind}"`, {
        code: 'SUBSTRATE_UNKNOWN',
        hint: `set substrate to one of: scripted:FILE, ${REAL_SUBSTRATE_KINDS.join(', ')} (optionally KIND:MODEL)`,
      });
  }
}
