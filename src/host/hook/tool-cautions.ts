/**
 * Cautions before (or, where the host has no context before the call, with) every tool call:
 * the feedback/caution memories whose `applies_to` matches the call, from the precomputed table
 * (mind/observation), never the recall index. A memory's `on_match` decides: `warn` (context,
 * once per session per memory unless it says `repeat: true`), `ask` (the host's confirmation;
 * on a host without one, the first matching call of the session is refused with the memory's
 * text and a request to confirm with the user), `deny` (refused with the memory's text, every
 * time). firstlight's own tools are never cautioned: no memory can lock the mind out.
 */
import { argValuesOf } from '../../core/glob/index.js';
import {
  type CautionMatch,
  claimCaution,
  loadCautionTable,
  matchCautions,
} from '../../mind/cautions/index.js';
import type { HookInput, HostCaps } from '../types.js';
import { isOwnTool } from './gate-config.js';

export interface CautionDeps {
  home: string;
  now: Date;
  caps: HostCaps['toolHooks'];
  /** Before the call (PreToolUse) or with its result (PostToolUse). */
  when: 'pre' | 'post';
}

/** What the matching memories ask of this call. */
export interface CautionVerdict {
  deny?: string;
  ask?: string;
  context?: string;
}

const quote = (m: CautionMatch) => `memory "${m.rule.name}" (applies_to ${JSON.stringify(m.pattern)})`;

export async function toolCautions(input: HookInput, deps: CautionDeps): Promise<CautionVerdict> {
  const tool = input.toolName;
  if (!tool || isOwnTool(input, tool)) return {};
  // After the call only a warning can come, and only on a host with no context before it.
  if (deps.when === 'post' && deps.caps.preContext) return {};
  const table = await loadCautionTable(deps.home);
  const matches = matchCautions(table, tool, argValuesOf(input.toolInput));
  if (matches.length === 0) return {};
  const session = input.sessionId;
  const once = (m: CautionMatch, tag: string) =>
    session === null || claimCaution(deps.home, session, `${tag}:${m.rule.file}`, deps.now);
  const verdict: CautionVerdict = {};
  if (deps.when === 'pre') {
    const denies = matches.filter((m) => m.rule.on_match === 'deny');
    if (denies.length > 0) {
      verdict.deny = denies.map((m) => `firstlight: ${quote(m)} refuses ${tool}: ${m.rule.text}`).join('\n');
      return verdict;
    }
    const asks = matches.filter((m) => m.rule.on_match === 'ask');
    if (asks.length > 0) {
      const why = asks.map((m) => `${quote(m)}: ${m.rule.text}`).join('\n');
      if (deps.caps.ask) {
        verdict.ask = `firstlight: confirm ${tool} first. ${why}`;
        return verdict;
      }
      // No ask decision on this host: refuse once, so the agent asks the user in the conversation.
      if (asks.some((m) => once(m, 'ask'))) {
        verdict.deny = `firstlight: ${tool} needs the user's confirmation (this host cannot ask): ${why}\nAsk the user; if they agree, retry the same call.`;
        return verdict;
      }
    }
  }
  // Warnings go where the host shows context: before the call, else with its result.
  if ((deps.when === 'pre') !== deps.caps.preContext) return verdict;
  const warns = matches.filter((m) => m.rule.on_match === 'warn' && (m.rule.repeat || once(m, 'warn')));
  if (warns.length > 0) {
    const head = deps.when === 'pre' ? `firstlight caution before ${tool}` : `firstlight caution for ${tool}`;
    verdict.context = warns.map((m) => `${head}, from ${quote(m)}: ${m.rule.text}`).join('\n');
  }
  return verdict;
}
