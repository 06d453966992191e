import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, memoByFiles } from '../core/index.js';
import type { HandoffRecord } from './handoffs.js';
import { HANDOFF_FIELDS, type Mode } from './policy.js';
import type { Profile, ProfileRole, SurfaceProfile } from './profile.js';
import { sectionOf } from './sources.js';

/**
 * The system prompt: the profile's body (a file, or the home's mind contract), then mode,
 * surface and engagement scaffolding, and the brand discipline and governance by pointer —
 * never their text.
 */

const bodies = new Map<string, () => string>();

/** The system prompt body: the mind contract, the document (or its section) the profile resolved, or its markdown body. */
export async function promptBody(profile: Profile, home: string): Promise<string> {
  const source = profile.prompt;
  if (source.kind === 'body') return source.text;
  if (source.kind === 'contract') {
    const { assembleContract } = await import('../mind/index.js');
    const contract = assembleContract(join(home, 'persona'));
    if (!contract.available) {
      throw new ConfigError(`system_prompt_uri mind:contract: ${contract.error}`, {
        code: 'PROFILE_INVALID',
        file: profile.file,
        field: 'system_prompt_uri',
        hint: `fix the mind contract under ${join(home, 'persona')} or point system_prompt_uri at a file`,
      });
    }
    return contract.text;
  }
  const { file, fragment } = source;
  try {
    const key = `${file}#${fragment ?? ''}`;
    let memo = bodies.get(key);
    if (!memo) {
      memo = memoByFiles(() => {
        const text = readFileSync(file, 'utf8');
        return { value: (fragment ? sectionOf(text, fragment) : text)?.trim() ?? '', files: [file] };
      });
      bodies.set(key, memo);
    }
    return memo();
  } catch {
    throw new ConfigError(`system_prompt_uri: cannot read ${file}`, {
      code: 'PROFILE_INVALID',
      file: profile.file,
      field: 'system_prompt_uri',
      hint: 'give a file (relative to the profile), a file: URI, a URI runtime.sources maps, or mind:contract',
    });
  }
}

const MODE_SCAFFOLDING: Readonly<Record<Mode, string>> = {
  exploration:
    'You are exploring. Valid if it reveals something new. Surface possibilities, tensions, unknowns and competing frames; do not decide or recommend. You cannot change anything.',
  planning:
    'You are planning. Valid if assumptions are visible and challengeable. Declare assumptions, scope (in and out), deferred items and what would invalidate the plan; mark what is unverified as such. You may write only to scratch.',
  execution:
    "You are building. Valid if it produces verifiable outcomes. Stay inside the plan's scope; your tools are locked for this session. Concerns noticed mid-build are noted and carried forward (the handoff's carried_forward list), not turned into pivots. A completion claim cites the artifact that shows it (a file, a test, a commit).",
  validation:
    'You are validating, in fresh context. Valid if findings are grounded in the artifact as built, not in what you wish had been built. Report findings, each with a disposition (fix, pivot or accept) and evidence; do not redesign and do not fix.',
  resolution:
    'You are resolving findings. Valid if it addresses the findings without expanding scope. Address each finding per its disposition and say what changed and what did not, and why. Do not certify your own fix.',
};

const HANDOFF_SHAPES: Readonly<Record<string, string>> = {
  synthesis: '{"possibilities": [...], "tensions": [...], "unknowns": [...], "frames": [...]}',
  plan: '{"assumptions": [...], "scope": {"in": [...], "out": [...]}, "deferred": [...], "would_invalidate": [...]}',
  artifact: '{"artifact": "<reference>", "claims": {"does": [...], "does_not": [...], "scope": "..."}}',
  findings:
    '{"findings": [{"id": "f1", "summary": "...", "disposition": "fix|pivot|accept", "evidence": "..."}]}',
  revision:
    '{"artifact": "<revised reference>", "remediation": [{"finding": "f1", "changed": "...", "not_changed": "..."}]}',
};

export interface ComposeInput {
  readonly profile: Profile;
  readonly body: string;
  readonly role: ProfileRole;
  readonly mode: Mode | null;
  readonly surface: string;
  readonly surfaceProfile: SurfaceProfile | undefined;
  readonly engagement: 'agent' | 'assistant';
  readonly collapsed?: readonly Mode[];
}

export function composeSystemPrompt(input: ComposeInput): string {
  const { profile, role, mode, surfaceProfile: sp } = input;
  const parts = [input.body.trim(), '', '## This session'];
  parts.push(
    `Persona ${profile.persona} (version ${profile.version}); role ${role.name}${mode ? `, ${mode} mode` : ''}; surface ${input.surface}; engagement ${input.engagement}.`,
  );
  if (input.collapsed && input.collapsed.length > 0) {
    parts.push(`The operator collapsed these modes into this one session: ${input.collapsed.join(', ')}.`);
    for (const m of input.collapsed) parts.push(`- ${MODE_SCAFFOLDING[m]}`);
  } else if (mode) {
    parts.push(MODE_SCAFFOLDING[mode]);
  }
  const surface: string[] = [];
  if (sp?.density) surface.push(`density ${sp.density}`);
  if (sp?.max_tokens_per_emission) surface.push(`at most ${sp.max_tokens_per_emission} tokens per emission`);
  if (sp?.narrative) surface.push('prose is expected');
  if (sp?.bidirectional) surface.push('translate in both directions');
  if (surface.length > 0) parts.push(`Surface: ${surface.join('; ')}.`);
  if (sp?.structured_output === 'required')
    parts.push('End with one fenced ```json block: free-form text alone is rejected.');
  parts.push(
    input.engagement === 'agent'
      ? 'Engagement agent: run to completion. Do not ask clarifying questions; if the input is not enough, say what is missing.'
      : 'Engagement assistant: you may ask one clarifying question and yield the turn: reply with {"clarifying_question": "..."} in a fenced ```json block.',
  );
  if (role.produces) {
    parts.push(
      '',
      '## Deliverable',
      `End with a fenced \`\`\`json block {"handoff": ${HANDOFF_SHAPES[role.produces]}} (required: ${HANDOFF_FIELDS[role.produces].join(', ')}).`,
      'If the handoff you received is not enough to do your job, instead end with {"outcome": {"type": "handoff_insufficient", "missing": ["..."], "proposed_resolution": "request fresh upstream session" | "request clarification from upstream author" | "operator override decision"}}.',
    );
  }
  const pointers: string[] = [];
  if (profile.brandDisciplineUri)
    pointers.push(`Brand discipline: ${profile.brandDisciplineUri} (read it when you need it).`);
  for (const uri of profile.inheritance) pointers.push(`Inherited governance: ${uri}`);
  if (profile.knowledgeBases.length > 0)
    pointers.push(`Knowledge bases: ${profile.knowledgeBases.join(', ')}`);
  if (pointers.length > 0) parts.push('', '## Governance (by pointer)', ...pointers);
  return parts.join('\n');
}

/** The first user message: the task, then each handoff as encoded, then governance pointers. */
export function composeTaskMessage(
  task: string,
  handoffs: readonly HandoffRecord[],
  governance: readonly string[],
): string {
  const parts = [task.trim()];
  for (const handoff of handoffs) {
    parts.push(
      '',
      `## Handoff ${handoff.id} (${handoff.kind})`,
      '```json',
      JSON.stringify(handoff.content, null, 2),
      '```',
    );
  }
  if (governance.length > 0) parts.push('', '## Governance', ...governance.map((g) => `- ${g}`));
  return parts.join('\n');
}
