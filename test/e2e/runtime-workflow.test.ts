import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RuntimeFixture, runtimeFixture } from './runtime-fixture.js';

/**
 * The canon's multi-role build workflow, end to end through the built CLI with the example
 * home's personas: explorer → planner → builder → validator → resolver → re-validation, each a
 * fresh session reading only the encoded handoff, with one handoff_insufficient detour, and
 * `firstlight journal` telling the story.
 */
describe('firstlight invoke: the multi-role workflow', { timeout: 120_000 }, () => {
  let fx: RuntimeFixture;
  const sessions: string[] = [];
  const handoffs: Record<string, string> = {};

  beforeAll(() => {
    fx = runtimeFixture();
  });
  afterAll(() => fx.dispose());

  function step(
    persona: string,
    role: string,
    surface: string,
    handoff: string | undefined,
    output: unknown,
    text: string,
    exitCode = 0,
  ) {
    const script = fx.script({ steps: [{ delay_ms: 5, text, output }] });
    const { code, result } = fx.invoke([
      '--persona',
      persona,
      '--role',
      role,
      '--surface',
      surface,
      '--engagement',
      'agent',
      '--task',
      `${role}: make item listing fast`,
      ...(handoff ? ['--handoff', handoff] : []),
      '--substrate',
      `scripted:${script.path}`,
    ]);
    expect(code, JSON.stringify(result.meta)).toBe(exitCode);
    expect(sessions).not.toContain(result.meta.session_id);
    sessions.push(result.meta.session_id);
    const received = script.received();
    expect(received).toHaveLength(1);
    // Fresh: one user message, the task plus exactly the handoff it was given.
    expect(received[0]!.messages).toHaveLength(1);
    const message = received[0]!.messages[0]!.content;
    for (const [name, id] of Object.entries(handoffs)) {
      if (id === handoff) expect(message, name).toContain(`## Handoff ${id}`);
      else expect(message, name).not.toContain(`## Handoff ${id}`);
    }
    return result;
  }

  it('explorer → (planner: handoff insufficient) → explorer → planner → builder → validator → resolver → re-validation', () => {
    const thin = step(
      'explorer',
      'explorer',
      'synthesis-ledger',
      undefined,
      { handoff: { possibilities: ['cache'], tensions: [], unknowns: [], frames: ['speed'] } },
      'A first look. What else is there?',
    );
    handoffs.thinSynthesis = thin.meta.handoff_id!;
    expect(thin.output?.handoff?.kind).toBe('synthesis');

    const detour = step(
      'planner',
      'planner',
      'code-output',
      handoffs.thinSynthesis,
      {
        outcome: {
          type: 'handoff_insufficient',
          missing: ['the synthesis names caching but no tradeoff between freshness and speed'],
          proposed_resolution: 'request fresh upstream session',
        },
      },
      'I cannot plan from this.',
      4, // handoff_insufficient: its own exit code, so `invoke … && invoke …` stops here
    );
    expect(detour.status).toBe('completed');
    expect(detour.outcome).toEqual({
      type: 'handoff_insufficient',
      missing: ['the synthesis names caching but no tradeoff between freshness and speed'],
      proposed_resolution: 'request fresh upstream session',
      handoffs: [handoffs.thinSynthesis],
    });
    expect(detour.meta.handoff_id).toBeUndefined();

    const synthesis = step(
      'explorer',
      'explorer',
      'synthesis-ledger',
      undefined,
      {
        handoff: {
          possibilities: ['edge cache', 'in-process LRU'],
          tensions: ['freshness vs speed: listings change hourly'],
          unknowns: ['read/write ratio'],
          frames: ['latency budget', 'operating cost'],
        },
      },
      'Two ways, one tension. Which matters more: freshness or speed?',
    );
    handoffs.synthesis = synthesis.meta.handoff_id!;

    const plan = step(
      'planner',
      'planner',
      'code-output',
      handoffs.synthesis,
      {
        handoff: {
          assumptions: ['reads are over 90% of traffic'],
          scope: { in: ['GET /items cached 60 s'], out: ['write-through invalidation'] },
          deferred: ['eviction tuning'],
          would_invalidate: ['writes above 10% of traffic'],
        },
      },
      'Plan ready.',
    );
    handoffs.plan = plan.meta.handoff_id!;

    const build = step(
      'builder',
      'builder',
      'code-output',
      handoffs.plan,
      {
        handoff: {
          artifact: 'src/cache.ts',
          claims: {
            does: ['caches GET /items for 60 s'],
            does_not: ['invalidate on write'],
            scope: handoffs.plan,
          },
        },
      },
      'Built.',
    );
    handoffs.artifact = build.meta.handoff_id!;

    const audit = step(
      'auditor',
      'validator',
      'audit',
      handoffs.artifact,
      {
        handoff: {
          findings: [
            {
              id: 'f1',
              summary: '🦦 the TTL is read from an unset variable',
              disposition: 'fix',
              evidence: 'src/cache.ts:12',
            },
            { id: 'f2', summary: 'no metrics', disposition: 'accept', evidence: 'out of scope per claims' },
          ],
        },
      },
      '🦦 Two findings, one to fix. ✅ claims match otherwise.',
    );
    handoffs.findings = audit.meta.handoff_id!;
    // Persona voice: the otter stays in the human field and leaves every machine field.
    expect(audit.output?.text).toBe('🦦 Two findings, one to fix. ✅ claims match otherwise.');
    expect(JSON.stringify(audit.output?.data)).not.toContain('🦦');
    expect(JSON.stringify(audit.output?.handoff)).not.toContain('🦦');
    expect((audit.output!.handoff!.content as { findings: { summary: string }[] }).findings[0]!.summary).toBe(
      'the TTL is read from an unset variable',
    );

    const resolve = step(
      'resolver',
      'resolver',
      'code-output',
      handoffs.findings,
      {
        handoff: {
          artifact: 'src/cache.ts@2',
          remediation: [
            { finding: 'f1', changed: 'TTL read from config with a 60 s default' },
            { finding: 'f2', not_changed: 'accepted: metrics are out of scope' },
          ],
        },
      },
      'Resolved f1; f2 accepted.',
    );
    handoffs.revision = resolve.meta.handoff_id!;
    expect(resolve.meta.flags).not.toContain('resolution_outside_findings');

    const recheck = step(
      'auditor',
      'validator',
      'audit',
      handoffs.revision,
      { handoff: { findings: [] } },
      '✅ Re-validated: no findings.',
    );
    expect(recheck.meta.handoff_id).toMatch(/^findings-/);
    expect(recheck.meta.handoff_inputs).toEqual([handoffs.revision]);
  });

  it('firstlight journal tells the story', () => {
    const transitions = fx
      .journal(['--type', 'transition'])
      .entries.map((e) => e.title.replace(/ \(.*$/, ''));
    expect(transitions).toEqual([
      'transition: exploration → planning',
      'transition: exploration → planning',
      'transition: planning → execution',
      'transition: execution → validation',
      'transition: validation → resolution',
      'transition: resolution → validation',
      'transition: validation → resolution',
    ]);
    const insufficient = fx.journal(['--type', 'handoff_insufficient']).entries;
    expect(insufficient).toHaveLength(1);
    expect(insufficient[0]!.content).toContain(`handoffs=${handoffs.thinSynthesis}`);
    expect(insufficient[0]!.content).toContain('proposed_resolution=request fresh upstream session');
    const all = fx.journal().entries;
    expect(all.filter((e) => e.kind === 'session_start')).toHaveLength(sessions.length);
    expect(all.filter((e) => e.kind === 'session_end')).toHaveLength(sessions.length);
    const text = fx.journalText();
    expect(text).toContain('H  transition: execution → validation');
    expect(text).toContain('O(open)  handoff_insufficient: planner cannot proceed on');
    expect(
      fx
        .journalText(['--since', '1h', '--type', 'H'])
        .split('\n')
        .filter((l) => l.includes('transition:')),
    ).toHaveLength(7);
  });
});
