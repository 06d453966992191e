import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  createRuntime,
  type InvokeRequest,
  type Runtime,
  type Script,
  ScriptedSubstrate,
  type Substrate,
  type SubstrateRequest,
  type SubstrateResult,
  VOICES,
} from '../../src/runtime/index.js';
import {
  ALL_ROLES_PROFILE,
  DELIVERABLES,
  HANDOFFS,
  type RuntimeFixture,
  runtimeFixture,
} from './runtime-fixture.js';

/** The runtime as a library: createRuntime(), invoke() and invokeMany() on scripted substrates. */
describe('createRuntime', () => {
  let fx: RuntimeFixture;
  let runtime: Runtime;
  let files: Record<string, string>;

  beforeAll(() => {
    fx = runtimeFixture();
    const profile = {
      ...ALL_ROLES_PROFILE,
      persona: 'lib',
      surface_profiles: {
        ...ALL_ROLES_PROFILE.surface_profiles,
        ticker: { density: 'high', max_tokens_per_emission: 10, max_retries: 2 },
        report: {
          structured_output: 'required',
          output_schema: { type: 'object', required: ['verdict'] },
          max_retries: 1,
        },
      },
    };
    writeFileSync(join(fx.home, 'personas', 'lib.yaml'), stringify(profile));
    writeFileSync(join(fx.home, 'personas', 'team-prompt.md'), 'You are a test persona.\n');
    runtime = createRuntime({ home: fx.home, project: fx.project, cwd: fx.project });
    files = {
      synthesis: fx.file('l-synthesis.json', HANDOFFS.synthesis),
      plan: fx.file('l-plan.json', HANDOFFS.plan),
      artifact: fx.file('l-artifact.json', HANDOFFS.artifact),
      findings: fx.file('l-findings.json', HANDOFFS.findings),
    };
  });
  afterAll(() => fx.dispose());

  const request = (role: string, script: Script | Substrate, extra: Partial<InvokeRequest> = {}) => {
    const substrate =
      script instanceof ScriptedSubstrate || 'run' in script
        ? (script as Substrate)
        : new ScriptedSubstrate(script);
    const req: InvokeRequest = {
      persona: 'lib',
      role,
      surface: 'audit',
      engagement: 'agent',
      task: `as ${role}`,
      substrate,
      ...extra,
    };
    return { req, substrate };
  };

  it('a refused combination never touches the substrate', async () => {
    const substrate = new ScriptedSubstrate({ steps: [{ text: 'never' }] });
    const result = await runtime.invoke(request('planner', substrate).req);
    expect(result.meta.refusal_reason).toBe('missing_handoff');
    expect(substrate.calls).toHaveLength(0);
  });

  it('density cap: shorter retries, then the named failure', async () => {
    const long = 'word '.repeat(40);
    const retried = new ScriptedSubstrate({
      runs: [{ steps: [{ text: long }] }, { steps: [{ text: 'short now' }] }],
    });
    const ok = await runtime.invoke(request('observer', retried, { surface: 'ticker' }).req);
    expect(ok.status).toBe('completed');
    expect(ok.meta.attempts).toBe(2);
    expect(retried.calls[1]!.messages.at(-1)!.content).toMatch(/allows 10/);
    const stubborn = new ScriptedSubstrate({ runs: [0, 1, 2].map(() => ({ steps: [{ text: long }] })) });
    const failed = await runtime.invoke(request('observer', stubborn, { surface: 'ticker' }).req);
    expect(failed.status).toBe('failed');
    expect(failed.meta.failure_reason).toBe('density_exceeded');
    expect(failed.meta.attempts).toBe(3);
  });

  it('structured_output required: fenced JSON parsed and validated, retried, then failed', async () => {
    const fixed = new ScriptedSubstrate({
      runs: [
        { steps: [{ text: 'free-form prose' }] },
        { steps: [{ text: 'ok', output: { verdict: 'pass' } }] },
      ],
    });
    const ok = await runtime.invoke(request('observer', fixed, { surface: 'report' }).req);
    expect(ok.status).toBe('completed');
    expect(ok.output?.data).toEqual({ verdict: 'pass' });
    const wrong = new ScriptedSubstrate({
      runs: [0, 1].map(() => ({ steps: [{ text: 'x', output: { score: 1 } }] })),
    });
    const failed = await runtime.invoke(request('observer', wrong, { surface: 'report' }).req);
    expect(failed.meta.failure_reason).toBe('structured_output_invalid');
    expect(failed.meta.detail).toContain('missing required key "verdict"');
  });

  it('engagement agent: a clarifying question is the named failure clarification_required', async () => {
    const result = await runtime.invoke(
      request('general', { steps: [{ text: 'Did you mean the staging cache?' }] }).req,
    );
    expect(result.status).toBe('failed');
    expect(result.meta.failure_reason).toBe('clarification_required');
    expect(result.meta.detail).toBe('Did you mean the staging cache?');
  });

  it('engagement assistant: the question yields the turn and continue carries the session on with its state', async () => {
    const script = new ScriptedSubstrate({
      runs: [
        { steps: [{ text: 'x', output: { clarifying_question: 'Staging or production?' } }] },
        { steps: [{ text: 'Production it is.' }] },
      ],
    });
    const first = await runtime.invoke(
      request('general', script, { surface: 'sidebar-chat', engagement: 'assistant' }).req,
    );
    expect(first.outcome).toEqual({ type: 'turn_yielded', question: 'Staging or production?' });
    const second = await runtime.invoke(
      request('general', script, {
        surface: 'sidebar-chat',
        engagement: 'assistant',
        task: 'production',
        continue: first.meta.session_id,
      }).req,
    );
    expect(second.status).toBe('completed');
    expect(second.meta.session_id).toBe(first.meta.session_id);
    expect(second.output?.text).toBe('Production it is.');
    expect(script.calls[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    await expect(
      runtime.invoke(
        request('general', script, {
          surface: 'sidebar-chat',
          engagement: 'assistant',
          continue: first.meta.session_id,
        }).req,
      ),
    ).rejects.toThrow(/not waiting for a turn/);
  });

  it('a finished agent session (no state file) is known by its journal: continuing it into another mode is refused', async () => {
    const done = await runtime.invoke(
      request('explorer', { steps: [{ text: 'x', output: DELIVERABLES.explorer }] }).req,
    );
    expect(done.status).toBe('completed');
    const fix = await runtime.invoke(
      request('planner', { steps: [{ text: 'never' }] }, { continue: done.meta.session_id }).req,
    );
    expect(fix.meta.refusal_reason).toBe('same_session_transition');
    await expect(
      runtime.invoke(
        request('explorer', { steps: [{ text: 'never' }] }, { continue: done.meta.session_id }).req,
      ),
    ).rejects.toThrow(/not waiting for a turn/);
  });

  it.each([
    [
      'explorer',
      'premature_closure',
      undefined,
      {
        text: 'Decision: use Redis.\nWe should ship it.',
        output: { handoff: { ...HANDOFFS.synthesis.content, tensions: [], unknowns: [] } },
      },
    ],
    [
      'builder',
      'mid_build_pivot',
      'plan',
      { text: 'The plan is wrong, so I pivoted to a queue.', output: DELIVERABLES.builder },
    ],
    [
      'resolver',
      'resolution_outside_findings',
      'findings',
      {
        text: 'Done.',
        output: {
          handoff: {
            artifact: 'x',
            remediation: [
              { finding: 'f1', changed: 'ttl' },
              { finding: 'f9', changed: 'new feature' },
            ],
          },
        },
      },
    ],
  ] as const)('detector: %s raises %s', async (role, flag, handoff, step) => {
    const result = await runtime.invoke(
      request(role, { steps: [step] }, handoff ? { handoffs: [files[handoff]!] } : {}).req,
    );
    expect(result.status, result.meta.detail).toBe('completed');
    expect(result.meta.flags).toContain(flag);
  });

  it('detector: a builder calling outside its locked set raises scope_violation', async () => {
    const result = await runtime.invoke(
      request(
        'builder',
        {
          steps: [
            { tool_calls: [{ name: 'deploy__prod', input: {} }] },
            { text: 'built', output: DELIVERABLES.builder },
          ],
        },
        { handoffs: [files.plan!] },
      ).req,
    );
    expect(result.meta.flags).toContain('scope_violation');
    expect(result.meta.denials).toEqual([{ tool: 'deploy__prod', reason: 'not_in_session_tool_set' }]);
  });

  it('a plan without assumptions, deferred or would_invalidate is rejected after a retry', async () => {
    const thin = { handoff: { assumptions: ['a'], scope: { in: ['x'], out: [] } } };
    const result = await runtime.invoke(
      request(
        'planner',
        { runs: [0, 1, 2].map(() => ({ steps: [{ text: 'plan', output: thin }] })) },
        { handoffs: [files.synthesis!] },
      ).req,
    );
    expect(result.status).toBe('failed');
    expect(result.meta.failure_reason).toBe('deliverable_incomplete');
    expect(result.meta.detail).toContain('deferred, would_invalidate');
    expect(result.meta.flags).toContain('plan_incomplete');
  });

  it('Greek, Hebrew, Devanagari, Arabic and CJK pass through the pipeline untouched in every voice', async () => {
    const text = 'Καλημέρα · שלום · नमस्ते · مرحبا · 你好 한국어 ✅';
    for (const voice of VOICES) {
      const result = await runtime.invoke(
        request('observer', { steps: [{ text: `${text} 🦦`, output: { note: text } }] }, { voice }).req,
      );
      const expected = voice === 'strict' ? text.replace(' ✅', '') : text;
      expect(result.output?.text, voice).toBe(voice === 'persona' ? `${text} 🦦` : expected);
      expect(result.output?.data, voice).toEqual({ note: expected });
    }
  });

  it('streams substrate events to onEvent, and a substrate that throws ends the session as failed', async () => {
    const events: string[] = [];
    const ok = await runtime.invoke({
      ...request('observer', { steps: [{ text: 'hello' }] }).req,
      onEvent: (event) => events.push(event.type),
    });
    expect(ok.status).toBe('completed');
    expect(events).toEqual(['text', 'usage']);
    const broken: Substrate = {
      kind: 'broken',
      enforcement: { toolList: true, execution: true },
      run: async () => {
        throw new Error('connection reset');
      },
    };
    const failed = await runtime.invoke(request('observer', broken).req);
    expect(failed.status).toBe('failed');
    expect(failed.meta.failure_reason).toBe('substrate_error');
    expect(failed.meta.detail).toBe('connection reset');
    const end = (await runtime.journal({ type: 'session_end' })).find(
      (e) => e.session === failed.meta.session_id,
    );
    expect(end?.title).toContain('failed (substrate_error)');
  });

  it('invokeMany fans out within a mode under a concurrency limit, results in request order', async () => {
    let running = 0;
    let peak = 0;
    const counting = (n: number): Substrate => {
      const inner = new ScriptedSubstrate({
        steps: [{ delay_ms: 120, text: `explorer ${n}`, output: DELIVERABLES.explorer }],
      });
      return {
        kind: 'scripted',
        enforcement: inner.enforcement,
        async run(req: SubstrateRequest): Promise<SubstrateResult> {
          running++;
          peak = Math.max(peak, running);
          try {
            return await inner.run(req);
          } finally {
            running--;
          }
        },
      };
    };
    const requests = [0, 1, 2, 3, 4].map((n) => request('explorer', counting(n)).req);
    const results = await runtime.invokeMany(requests, { concurrency: 2 });
    expect(peak).toBe(2);
    expect(results.map((r) => r.output?.text)).toEqual([0, 1, 2, 3, 4].map((n) => `explorer ${n}`));
    expect(new Set(results.map((r) => r.meta.session_id)).size).toBe(5);
    expect((await runtime.journal({ type: 'transition' })).length).toBeGreaterThanOrEqual(5);
  });
});
