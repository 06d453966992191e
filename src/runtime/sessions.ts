import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { UserError } from '../core/index.js';
import type { Mode } from './policy.js';
import type { SubstrateMessage } from './substrates/types.js';

/**
 * Session state, kept by the ledger (`<ledger>/sessions/<id>.json` in the embedded store): enough
 * to continue an assistant session that yielded the turn, and to refuse continuing any session
 * into another mode.
 */

export interface SessionState {
  readonly id: string;
  readonly profile: string;
  readonly persona: string;
  readonly role: string;
  readonly mode: Mode | null;
  readonly surface: string;
  readonly engagement: 'agent' | 'assistant';
  readonly voice: string;
  /** `yielded`: waiting for the caller's turn; else how it ended. */
  readonly status: 'yielded' | 'completed' | 'failed';
  readonly messages: readonly SubstrateMessage[];
  /** The locked tool set's names. */
  readonly tools: readonly string[];
  readonly handoffs: readonly string[];
  readonly created: string;
  readonly updated: string;
}

/**
 * Prior conversation to carry into a session (`--context FILE`): a JSON or YAML list of
 * `{role: user|assistant, content}`. A validator refuses it (fresh context).
 */
export function readContextFile(file: string): SubstrateMessage[] {
  const bad = (why: string) =>
    new UserError(`--context ${file}: ${why}`, {
      code: 'INVALID_ARGUMENT',
      hint: 'give a JSON or YAML list of messages: [{role: user, content: "…"}, {role: assistant, content: "…"}]',
    });
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw bad(`cannot read it (${(error as Error).message.split('\n')[0]})`);
  }
  if (!Array.isArray(raw)) throw bad('it is not a list');
  return raw.map((item, i) => {
    const m = (item ?? {}) as Record<string, unknown>;
    if ((m.role !== 'user' && m.role !== 'assistant') || typeof m.content !== 'string')
      throw bad(`item ${i} needs role (user or assistant) and content (a string)`);
    return { role: m.role, content: m.content };
  });
}
