import type { SurfaceProfile } from '../profile.js';
import { applyVoice, countTokens, structuredProblems, type Voice } from '../surfaces.js';

/**
 * Per-channel post-processing: one interpretation's answer, shaped for each output channel by
 * the channel's surface and voice. A channel carries the prose (a human field), the fenced JSON
 * (a machine field) or one key of it; its surface's density cap and structured-output contract
 * are checked on what it carries.
 */

/** A channel as the session runs it: its surface profile resolved. */
export interface ResolvedChannel {
  readonly name: string;
  readonly surface: string;
  readonly surfaceProfile: SurfaceProfile | undefined;
  readonly voice: Voice;
  /** `text`, `data` or `data.KEY`. */
  readonly select: string;
}

/** What an interpretation produced, before any channel's post-processing. */
export interface Answer {
  readonly prose: string;
  readonly data: unknown;
}

/** A channel's share of the answer, voiced; or why it cannot carry it. */
export type ChannelOutput =
  | { readonly ok: true; readonly value: unknown; readonly tag: 'human' | 'machine' }
  | { readonly ok: false; readonly problem: 'density' | 'structure'; readonly correction: string };

/** The part of the answer a channel selects, unvoiced. */
export function selectFor(channel: ResolvedChannel, answer: Answer): unknown {
  if (channel.select === 'text') return answer.prose;
  if (channel.select === 'data') return answer.data ?? null;
  const key = channel.select.slice('data.'.length);
  const data = answer.data;
  return data && typeof data === 'object' && !Array.isArray(data)
    ? ((data as Record<string, unknown>)[key] ?? null)
    : null;
}

/**
 * Post-processes the answer for one channel: select, check the surface's contract (density cap
 * on prose, structured output), apply the voice. A failed check says what to ask the model for.
 */
export async function channelOutput(channel: ResolvedChannel, answer: Answer): Promise<ChannelOutput> {
  const sp = channel.surfaceProfile;
  const value = selectFor(channel, answer);
  const tag = channel.select === 'text' ? 'human' : 'machine';
  if (sp?.structured_output === 'required') {
    const problems =
      answer.data === undefined
        ? ['no fenced ```json block']
        : structuredProblems(answer.data, sp.output_schema);
    if (problems.length > 0) {
      return {
        ok: false,
        problem: 'structure',
        correction: `For the ${channel.name} channel your answer must end with one fenced \`\`\`json block: ${problems.join('; ')}.`,
      };
    }
  }
  const cap = sp?.max_tokens_per_emission;
  if (cap !== undefined && typeof value === 'string') {
    const tokens = await countTokens(value);
    if (tokens > cap) {
      return {
        ok: false,
        problem: 'density',
        correction: `For the ${channel.name} channel your answer was ${tokens} tokens; it allows ${cap}. Say it again in at most ${cap} tokens.`,
      };
    }
  }
  return { ok: true, value: applyVoice(value, channel.voice, tag), tag };
}
