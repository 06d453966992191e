import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UserError, writeFileAtomicallySync } from '../core/index.js';
import type { Mode } from './policy.js';
import type { SubstrateMessage } from './substrates/types.js';

/**
 * Session state in `<ledger>/sessions/<id>.json`: enough to continue an assistant session that
 * yielded the turn, and to refuse continuing any session into another mode.
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

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function sessionFile(ledger: string, id: string): string {
  return join(ledger, 'sessions', `${id}.json`);
}

export function readSession(ledger: string, id: string): SessionState | undefined {
  if (!ID.test(id)) return undefined;
  try {
    return JSON.parse(readFileSync(sessionFile(ledger, id), 'utf8')) as SessionState;
  } catch {
    return undefined;
  }
}

export function writeSession(ledger: string, state: SessionState): void {
  writeFileAtomicallySync(sessionFile(ledger, state.id), `${JSON.stringify(state, null, 2)}\n`, {
    fsync: false,
  });
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
