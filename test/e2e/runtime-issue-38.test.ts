import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  createRuntime,
  type InvokeRequest,
  type InvokeResult,
  type Runtime,
  type Script,
  ScriptedSubstrate,
} from '../../src/runtime/index.js';
import {
  ALL_ROLES_PROFILE,
  DELIVERABLES,
  HANDOFFS,
  type RuntimeFixture,
  roleArgs,
  runtimeFixture,
} from './runtime-fixture.js';
import { type RunningService, startService } from './runtime-service-fixture.js';

/**
 * Issue 38, the runtime (seed 001): each promise of the runtime contract that did not hold —
 * fan-out's concurrency over HTTP, the freshness of every role, a validator's task framed by a
 * conversation it never had, what a transition row records, a subscription's engagement, a
 * `file:` URI handoff, and the per-mode detectors — through the built CLI, the service's doors
 * and the runtime library.
 */

type ScriptStep = NonNullable<Script['steps']>[number];

const CONVERSATION = [
  { role: 'user', content: 'Earlier: I think we should cache with Redis.' },
  { role: 'assistant', content: 'Agreed, Redis it is.' },
];

describe('issue 38: the runtime contract, through the CLI', { timeout: 180_000 }, () => {
  let fx: RuntimeFixture;
  let context: string;

  beforeAll(() => {
    fx = runtimeFixture();
    context = fx.file('conversation.json', CONVERSATION);
    // Custom roles: a builder's tools with an explorer's light context (the canon's "drafting"),
    // and a general role that asks for fresh context.
    writeFileSync(
      join(fx.home, 'personas', 'drafter.yaml'),
      stringify({
        ...ALL_ROLES_PROFILE,
        persona: 'drafter',
        roles: [
          { name: 'drafting', like: 'builder', freshness: 'light' },
          { name: 'careful', like: 'general', freshness: 'fresh' },
        ],
      }),
    );
  });
  afterAll(() => fx?.dispose());

  const withTask = (args: string[], task: string) => [...args.slice(0, -1), task];

  it.each([
    ['planner', 'synthesis'],
    ['builder', 'plan'],
    ['resolver', 'findings'],
  ] as const)(
    'a %s (fresh) given prior conversation is refused inherited_context and never runs',
    async (role, kind) => {
      const script = fx.script({ steps: [{ text: 'Done.', output: DELIVERABLES[role] }] });
      const handoff = fx.file(`fresh-${role}.json`, HANDOFFS[kind]);
      const run = await fx.invoke([
        ...roleArgs('team', role),
        '--handoff',
        handoff,
        '--context',
        context,
        '--substrate',
        `scripted:${script.path}`,
      ]);
      expect(run.code, run.stderr).toBe(3);
      expect(run.result.meta.refusal_reason).toBe('inherited_context');
      expect(run.result.meta.detail).toMatch(/2 message\(s\) of prior conversation/);
      expect(script.received()).toHaveLength(0);
      const { entries } = await fx.journal(['--type', 'refusal']);
      expect(entries.some((e) => e.fields.reason === 'inherited_context' && e.fields.role === role)).toBe(
        true,
      );
    },
  );

  it('an explorer (light) takes prior conversation but not a later mode’s handoff; custom roles follow their freshness', async () => {
    // The scripted substrate plays the run numbered by the assistant messages already in the
    // conversation: the carried-in one makes this run 1.
    const afterConversation = (step: ScriptStep) => ({
      runs: [{ steps: [{ text: 'never' }] }, { steps: [step] }],
    });
    const explorer = fx.script(afterConversation({ text: 'Mapped.', output: DELIVERABLES.explorer }));
    const light = await fx.invoke([
      ...roleArgs('team', 'explorer'),
      '--context',
      context,
      '--substrate',
      `scripted:${explorer.path}`,
    ]);
    expect(light.code, JSON.stringify(light.result.meta)).toBe(0);
    expect(explorer.received()[0]!.messages.slice(0, 2)).toEqual(CONVERSATION);

    const planning = await fx.invoke([
      ...roleArgs('team', 'explorer'),
      '--handoff',
      fx.file('light-plan.json', HANDOFFS.plan),
      '--substrate',
      'scripted:/nonexistent/never-read.yaml',
    ]);
    expect(planning.code).toBe(3);
    expect(planning.result.meta.refusal_reason).toBe('inherited_context');
    expect(planning.result.meta.detail).toMatch(/a plan handoff .*from planning/);

    const drafting = fx.script(afterConversation({ text: 'Drafted.', output: DELIVERABLES.builder }));
    const drafted = await fx.invoke([
      ...roleArgs('drafter', 'drafting', 'code-output'),
      '--handoff',
      fx.file('drafting-plan.json', HANDOFFS.plan),
      '--context',
      context,
      '--substrate',
      `scripted:${drafting.path}`,
    ]);
    expect(drafted.code, drafted.stderr).toBe(0);
    expect(drafting.received()[0]!.messages[0]).toEqual(CONVERSATION[0]);

    const careful = await fx.invoke([
      ...roleArgs('drafter', 'careful'),
      '--context',
      context,
      '--substrate',
      'scripted:/nonexistent/never-read.yaml',
    ]);
    expect(careful.code).toBe(3);
    expect(careful.result.meta.refusal_reason).toBe('inherited_context');
  });

  it('a validator whose task is framed by an earlier conversation is refused, journaled, and runs when the task is restated', async () => {
    const artifact = await fx.builtArtifact();
    for (const task of ['As we discussed, check the cache against its claims.', 'Check it like before.']) {
      const script = fx.script({ steps: [{ text: 'never' }] });
      const run = await fx.invoke([
        ...withTask(roleArgs('team', 'validator'), task),
        '--handoff',
        artifact,
        '--substrate',
        `scripted:${script.path}`,
      ]);
      expect(run.code, run.stderr).toBe(3);
      expect(run.result.meta.refusal_reason).toBe('validator_extra_context');
      expect(run.result.meta.detail).toMatch(
        /a task framed by a conversation it never had \("(as we discussed|like before)"\)/i,
      );
      expect(script.received()).toHaveLength(0);
    }
    const { entries } = await fx.journal(['--type', 'refusal']);
    expect(entries.filter((e) => /never had/.test(e.fields.detail ?? ''))).toHaveLength(2);

    const script = fx.script({ steps: [{ text: 'Checked.', output: DELIVERABLES.validator }] });
    const restated = await fx.invoke([
      ...withTask(roleArgs('team', 'validator'), 'Check the cache against its claims.'),
      '--handoff',
      artifact,
      '--substrate',
      `scripted:${script.path}`,
    ]);
    expect(restated.code, restated.stderr).toBe(0);
    expect(script.received()[0]!.messages[0]!.content).toMatch(/^Check the cache against its claims\./);
  });

  it('transition rows record what the handoff met, deferred and carried forward', async () => {
    const planner = fx.script({ steps: [{ text: 'Planned.', output: DELIVERABLES.planner }] });
    const planned = await fx.invoke([
      ...roleArgs('team', 'planner'),
      '--handoff',
      fx.file('t-synthesis.json', HANDOFFS.synthesis),
      '--substrate',
      `scripted:${planner.path}`,
    ]);
    expect(planned.code, planned.stderr).toBe(0);
    const builder = fx.script({
      steps: [
        {
          text: 'Built.',
          output: {
            handoff: {
              ...HANDOFFS.artifact.content,
              carried_forward: ['the TTL may be too long for prices'],
            },
          },
        },
      ],
    });
    const built = await fx.invoke([
      ...roleArgs('team', 'builder', 'code-output'),
      '--handoff',
      planned.result.meta.handoff_id!,
      '--substrate',
      `scripted:${builder.path}`,
    ]);
    expect(built.code, built.stderr).toBe(0);
    const { entries } = await fx.journal(['--type', 'transition']);
    const row = (session: string) => entries.find((e) => e.session === session)!.fields;
    expect(row(planned.result.meta.session_id)).toMatchObject({
      met: 'assumptions,scope.in,scope.out,deferred,would_invalidate',
      deferred: 'eviction tuning',
      carried_forward: 'would invalidate: writes over 30%',
    });
    expect(row(built.result.meta.session_id)).toMatchObject({
      met: 'artifact,claims.does,claims.does_not,claims.scope',
      deferred: 'does not: invalidate on write',
      carried_forward: 'the TTL may be too long for prices',
    });
  });

  it('a handoff given as a file: URI resolves like its path; a URI of another host is bad usage', async () => {
    const path = fx.file('uri-synthesis.json', HANDOFFS.synthesis);
    const script = fx.script({ steps: [{ text: 'Planned.', output: DELIVERABLES.planner }] });
    const run = await fx.invoke([
      ...roleArgs('team', 'planner'),
      '--handoff',
      pathToFileURL(path).href,
      '--substrate',
      `scripted:${script.path}`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.result.meta.handoff_inputs).toHaveLength(1);
    const { entries } = await fx.journal(['--type', 'import']);
    expect(entries.find((e) => e.session === run.result.meta.session_id)?.fields.source).toBe(path);

    const remote = await fx.invoke([
      ...roleArgs('team', 'planner'),
      '--handoff',
      'file://elsewhere.example/x.json',
      '--substrate',
      'scripted:/nonexistent/never-read.yaml',
    ]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/not a file: URI of this machine/);
  });
});

/** What the doors answer, as far as these tests read it. */
interface Answer {
  readonly id?: string;
  readonly results?: InvokeResult[];
  readonly error?: { readonly code: string; readonly message: string; readonly fix?: string };
}

describe('issue 38: the runtime contract, through the service', { timeout: 180_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { ...service.auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  };

  beforeAll(async () => {
    fx = runtimeFixture();
    service = await startService(['--home', fx.home, '--project', fx.project]);
  });
  afterAll(async () => {
    await service?.stop();
    fx?.dispose();
  });

  it('fan-out honours concurrency: four 1 s sessions at concurrency 1 run one after another', async () => {
    const script = fx.script({ steps: [{ delay_ms: 1000, text: 'Mapped.', output: DELIVERABLES.explorer }] });
    const started = performance.now();
    const { status, body } = await post('/v1/invocations', {
      persona: 'team',
      role: 'explorer',
      surface: 'audit',
      engagement: 'agent',
      substrate: `scripted:${script.path}`,
      tasks: ['one', 'two', 'three', 'four'],
      concurrency: 1,
    });
    const elapsed = performance.now() - started;
    expect(status).toBe(200);
    const results = body.results ?? [];
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(elapsed).toBeGreaterThanOrEqual(4000);
    // No two sessions of the fan-out overlapped: each started after the one before ended.
    const sessions = results.map((r) => r.meta.session_id);
    const { entries } = await fx.journal();
    const at = (session: string, kind: string) =>
      Date.parse(entries.find((e) => e.session === session && e.kind === kind)!.at!);
    for (let i = 1; i < sessions.length; i++)
      expect(at(sessions[i]!, 'session_start')).toBeGreaterThanOrEqual(at(sessions[i - 1]!, 'session_end'));
  });

  it('a subscription takes the engagement an invocation takes: agent opens, assistant on a stream is refused as invoke refuses it', async () => {
    const substrate = `scripted:${fx.file('sub.yaml', stringify({ steps: [{ text: 'Seen.' }] }))}`;
    const subscription = {
      persona: 'team',
      surface: 'real-time-stream',
      task: 'Narrate the stream.',
      substrate,
    };
    const opened = await post('/v1/subscriptions', { ...subscription, engagement: 'agent' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const closed = await fetch(`${service.url}/v1/subscriptions/${opened.body.id}`, {
      method: 'DELETE',
      headers: service.auth,
    });
    expect(closed.status).toBe(200);

    const refused = await post('/v1/subscriptions', { ...subscription, engagement: 'assistant' });
    const invoked = await post('/v1/invocations', {
      persona: 'team',
      role: 'observer',
      surface: 'real-time-stream',
      engagement: 'assistant',
      task: 'Narrate the stream.',
      substrate,
    });
    expect(refused.status).toBe(422);
    expect(invoked.status).toBe(422);
    expect(refused.body.error).toEqual(invoked.body.error);
    expect(refused.body.error?.code).toBe('engagement_surface');

    // On any surface a subscribed session has no caller to yield the turn to.
    const audit = await post('/v1/subscriptions', {
      ...subscription,
      surface: 'audit',
      engagement: 'assistant',
    });
    expect(audit.status).toBe(422);
    expect(audit.body.error?.code).toBe('engagement_surface');
  });

  it('over the doors a handoff stays an id: a file: URI is refused HANDOFF_ID_REQUIRED', async () => {
    const { status, body } = await post('/v1/invocations', {
      persona: 'team',
      role: 'planner',
      surface: 'audit',
      engagement: 'agent',
      task: 'Plan it.',
      handoffs: [pathToFileURL(fx.file('door-synthesis.json', HANDOFFS.synthesis)).href],
    });
    expect(status).toBe(400);
    expect(body.error?.code).toBe('HANDOFF_ID_REQUIRED');
  });
});

describe('issue 38: the per-mode detectors, through the library', () => {
  let fx: RuntimeFixture;
  let runtime: Runtime;
  let files: Record<string, string>;

  beforeAll(() => {
    fx = runtimeFixture();
    runtime = createRuntime({ home: fx.home, project: fx.project, cwd: fx.project });
    files = {
      plan: fx.file('d-plan.json', HANDOFFS.plan),
      synthesis: fx.file('d-synthesis.json', HANDOFFS.synthesis),
      findings: fx.file('d-findings.json', HANDOFFS.findings),
    };
  });
  afterAll(() => fx?.dispose());

  const invoke = (role: string, step: ScriptStep, handoff?: string) => {
    const request: InvokeRequest = {
      persona: 'team',
      role,
      surface: 'audit',
      engagement: 'agent',
      task: `as ${role}`,
      substrate: new ScriptedSubstrate({ steps: [step] }),
      ...(handoff ? { handoffs: [files[handoff]!] } : {}),
    };
    return runtime.invoke(request);
  };
  const synthesis = HANDOFFS.synthesis.content;
  const artifact = HANDOFFS.artifact.content;
  const revision = (changed: string) => ({
    handoff: { artifact: 'src/cache.ts@2', remediation: [{ finding: 'f1', changed }] },
  });

  it.each([
    [
      'explorer',
      'emission_untagged',
      undefined,
      { text: 'Mapped.', output: { handoff: synthesis, emissions: [{ kind: 'musing', text: 'hm' }] } },
    ],
    [
      'explorer',
      'premature_closure',
      undefined,
      {
        text: 'Mapped.',
        output: {
          handoff: { ...synthesis, tensions: [], unknowns: [] },
          emissions: [
            { kind: 'decision', text: 'use Redis' },
            { kind: 'recommendation', text: 'ship it' },
          ],
        },
      },
    ],
    [
      'planner',
      'speculative_certainty',
      'synthesis',
      {
        text: 'Planned.',
        output: { handoff: { ...HANDOFFS.plan.content, assumptions: ['Reads will always dominate writes'] } },
      },
    ],
    [
      'builder',
      'status_unclassified',
      'plan',
      {
        text: 'Built.',
        output: { handoff: artifact, emissions: [{ kind: 'status', text: 'working' }] },
      },
    ],
    [
      'builder',
      'metric_laundering',
      'plan',
      {
        text: 'Built. All tests pass.',
        output: {
          handoff: {
            ...artifact,
            claims: { ...artifact.claims, does: ['caches GET /items', 'coverage is 95%'] },
          },
        },
      },
    ],
    [
      'resolver',
      'resolution_new_requirements',
      'findings',
      { text: 'Fixed.', output: revision('TTL of 60 s, and added a new endpoint for cache stats') },
    ],
    [
      'resolver',
      'resolution_self_validated',
      'findings',
      {
        text: 'Fixed f1. I have verified the fix; no further validation needed.',
        output: revision('TTL of 60 s'),
      },
    ],
  ] as const)('%s raises %s', async (role, flag, handoff, step) => {
    const result = await invoke(role, step as ScriptStep, handoff);
    expect(result.status, result.meta.detail).toBe('completed');
    expect(result.meta.flags).toContain(flag);
  });

  it.each([
    [
      'explorer',
      undefined,
      {
        text: 'Mapped.',
        output: {
          handoff: synthesis,
          emissions: [
            { kind: 'question', text: 'how hot are reads?' },
            { kind: 'tension', text: 'fresh vs fast' },
          ],
        },
      },
    ],
    [
      'planner',
      'synthesis',
      {
        text: 'Planned.',
        output: {
          handoff: { ...HANDOFFS.plan.content, assumptions: ['Reads likely dominate writes (unverified)'] },
        },
      },
    ],
    [
      'builder',
      'plan',
      {
        text: 'Built. All tests pass (test/cache.test.ts).',
        output: {
          handoff: artifact,
          emissions: [
            { kind: 'progress', text: 'cache wired' },
            { kind: 'assertion', text: 'coverage is 95%', evidence: 'coverage/lcov.info' },
          ],
        },
      },
    ],
    [
      'resolver',
      'findings',
      { text: 'Fixed f1; it goes back to a fresh validator.', output: revision('TTL of 60 s') },
    ],
  ] as const)('a %s that keeps its mode’s contract raises none of them', async (role, handoff, step) => {
    const result = await invoke(role, step as ScriptStep, handoff);
    expect(result.status, result.meta.detail).toBe('completed');
    expect(result.meta.flags).toEqual([]);
  });
});
