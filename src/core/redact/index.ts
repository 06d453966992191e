/**
 * @module core/redact — the one redactor: `<private>…</private>` blocks removed and secrets
 * (provider API keys and tokens, private keys, password pairs, high-entropy assignments)
 * replaced by `[redacted:KIND]` before text is written (events, captured last words, memories)
 * or injected (the SessionStart text). Light on purpose (node built-ins only; YAML loads only
 * for a home whose firstlight.yaml configures `redact:`): the PostToolUse hook calls it on
 * every tool call. Each redacting write is counted in `<home>/redactions.jsonl`.
 */

export type { RedactionTotals, RedactionWriter } from './home.js';
export {
  KIND_PATTERN,
  noteRedactions,
  readRedactionTotals,
  redactConfigOf,
  redactedJson,
  redactFor,
  redactionLogFile,
  redactorFor,
} from './home.js';
export type { RedactionCounts, RedactorConfig } from './redactor.js';
export { addCounts, DEFAULT_REDACTOR_CONFIG, Redactor } from './redactor.js';
export type { SecretRule } from './rules.js';
export { entropy, SECRET_RULES } from './rules.js';
