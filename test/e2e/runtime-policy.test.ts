import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DELIVERABLES,
  HANDOFFS,
  NO_SUBSTRATE,
  type RuntimeFixture,
  roleArgs,
  runtimeFixture,
} from './runtime-fixture.js';

/**
 * The policy table through the built CLI: every refusal with its reason code, exit 3, a journal
 * row, and no substrate touched (its script does not even exist); every allowed combination
 * completes on the scripted substrate.
 */
describe('firstlight invoke: the policy table', { timeout: 60_000 }, () => {
  let fx: RuntimeFixture;
  const base = (role: string, surface = 'audit', engagement = 'agent') =>
    roleArgs('team', role, surface, engagement);
  let files: Record<string, string>;

  beforeAll(() => {
    fx = runtimeFixture();
    files = {
      synthesis: fx.file('synthesis.json', HANDOFFS.synthesis),
      plan: fx.file('plan.json', HANDOFFS.plan),
      planIncomplete: fx.file('plan-incomplete.json', {
        kind: 'plan',
        content: { assumptions: ['a'], scope: { in: ['x'], out: [] } },
      }),
      artifact: fx.file('artifact.json', HANDOFFS.artifact),
      built: fx.builtArtifact(),
      findings: fx.file('findings.json', HANDOFFS.findings),
      skip: fx.file(
        'skip.yaml',
        'kind: skip\nacknowledgement: throwaway spike; planning skipped, its risks accepted by the project\n',
      ),
      override: fx.file(
        'override.yaml',
        [
          'type: operator_collapsed_modes',
          'modes_collapsed: [execution, validation]',
          'reason: production incident, checkout is down and a patch must ship within thirty minutes',
          'acknowledged_risks:',
          '  - the validator shares context with the builder; findings biased toward its framing',
        ].join('\n'),
      ),
      badOverride: fx.file(
        'override-bad.yaml',
        'type: operator_collapsed_modes\nmodes_collapsed: [execution, validation]\nreason: in a hurry\nacknowledged_risks: []\n',
      ),
    };
  });
  afterAll(() => fx.dispose());

  const refusals: [string, () => string[], string, RegExp][] = [
    [
      'validator requesting Write',
      () => [...base('validator'), '--handoff', files.artifact!, '--tool', 'Write'],
      'mutating_tools_for_role',
      /Write/,
    ],
    [
      'explorer requesting Bash',
      () => [...base('explorer'), '--tool', 'Bash'],
      'mutating_tools_for_role',
      /Bash/,
    ],
    [
      'planner requesting Edit (only scratch writes)',
      () => [...base('planner'), '--handoff', files.synthesis!, '--tool', 'Edit'],
      'mutating_tools_for_role',
      /Edit/,
    ],
    [
      'observer requesting an unknown tool (unknown mutates)',
      () => [...base('observer'), '--tool', 'deploy_everything'],
      'mutating_tools_for_role',
      /deploy_everything/,
    ],
    ['planner without a synthesis', () => base('planner'), 'missing_handoff', /synthesis/],
    [
      'resolver given a plan instead of findings',
      () => [...base('resolver'), '--handoff', files.plan!],
      'missing_handoff',
      /findings/,
    ],
    [
      'builder on a plan without deferred and would_invalidate',
      () => [...base('builder'), '--handoff', files.planIncomplete!],
      'incomplete_handoff',
      /deferred, would_invalidate/,
    ],
    [
      'validator on an artifact whose builder handoff does not exist',
      () => [...base('validator'), '--handoff', 'artifact-0000dead'],
      'no_builder_handoff',
      /artifact-0000dead/,
    ],
    [
      'validator given the plan beside the artifact',
      () => [...base('validator'), '--handoff', files.artifact!, '--handoff', files.plan!],
      'validator_extra_context',
      /plan handoff/,
    ],
    [
      'assistant on a real-time stream',
      () => base('observer', 'real-time-stream', 'assistant'),
      'engagement_surface',
      /real-time-stream/,
    ],
    [
      'agent on sidebar chat',
      () => base('general', 'sidebar-chat', 'agent'),
      'engagement_surface',
      /sidebar-chat/,
    ],
    [
      'an override with a vague reason and no risks',
      () => [...base('builder'), '--override', files.badOverride!],
      'invalid_override',
      /reason must be specific/,
    ],
  ];

  it.each(refusals)(
    'refuses %s: exit 3, meta.refusal_reason, a journal row, no substrate',
    (_name, args, reason, detail) => {
      const { code, result } = fx.invoke([...args(), ...NO_SUBSTRATE]);
      expect(result.status).toBe('refused');
      expect(result.meta.refusal_reason).toBe(reason);
      expect(result.meta.detail).toMatch(detail);
      expect(result.output).toBeNull();
      expect(code).toBe(3);
      const rows = fx
        .journal(['--type', 'refusal'])
        .entries.filter((e) => e.session === result.meta.session_id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.title).toContain(reason);
      expect(rows[0]!.type).toBe('C');
    },
  );

  it('refuses continuing a session into another mode (same_session_transition)', () => {
    const ask = fx.script({ steps: [{ text: 'Which service do you mean?' }] });
    const first = fx.invoke([
      ...base('explorer', 'sidebar-chat', 'assistant'),
      '--substrate',
      `scripted:${ask.path}`,
    ]);
    expect(first.result.outcome).toEqual({ type: 'turn_yielded', question: 'Which service do you mean?' });
    const { code, result } = fx.invoke([
      ...base('planner', 'sidebar-chat', 'assistant'),
      '--continue',
      first.result.meta.session_id,
      ...NO_SUBSTRATE,
    ]);
    expect(code).toBe(3);
    expect(result.meta.refusal_reason).toBe('same_session_transition');
    expect(
      fx
        .journal(['--type', 'refusal'])
        .entries.some((e) => e.title.startsWith('refusal: same_session_transition')),
    ).toBe(true);
  });

  const allowed: [string, string, () => string[]][] = [
    ['explorer', 'explorer', () => base('explorer')],
    ['planner on a synthesis', 'planner', () => [...base('planner'), '--handoff', files.synthesis!]],
    [
      'planner with a scratch write tool',
      'planner',
      () => [...base('planner'), '--handoff', files.synthesis!, '--tool', 'scratch_write'],
    ],
    ['builder on a plan', 'builder', () => [...base('builder', 'code-output'), '--handoff', files.plan!]],
    [
      'builder skipping planning with an acknowledgement',
      'builder',
      () => [...base('builder'), '--handoff', files.skip!],
    ],
    [
      'validator on artifact and claims',
      'validator',
      () => [...base('validator'), '--handoff', files.built!],
    ],
    [
      'resolver on findings',
      'resolver',
      () => [...base('resolver', 'code-output'), '--handoff', files.findings!],
    ],
    ['general', 'general', () => [...base('general'), '--tool', 'Bash']],
    ['observer on a real-time stream', 'observer', () => base('observer', 'real-time-stream')],
    ['observer in a sidebar chat', 'observer', () => base('observer', 'sidebar-chat', 'assistant')],
    [
      'validator under an override collapsing execution and validation, with Write',
      'validator',
      () => [...base('validator'), '--override', files.override!, '--tool', 'Write'],
    ],
  ];

  it.each(allowed)('completes %s on the scripted substrate', (_name, role, args) => {
    const deliverable = DELIVERABLES[role];
    const script = fx.script({
      steps: [{ text: `${role} done.`, ...(deliverable ? { output: deliverable } : {}) }],
    });
    const { code, result, stderr } = fx.invoke([...args(), '--substrate', `scripted:${script.path}`]);
    expect(result.status, `${stderr}${result.meta.detail ?? ''}`).toBe('completed');
    expect(code).toBe(0);
    expect(script.received()).toHaveLength(1);
    const kinds = fx
      .journal()
      .entries.filter((e) => e.session === result.meta.session_id)
      .map((e) => e.kind);
    expect(kinds[0]).toBe('session_start');
    expect(kinds).toContain('session_end');
    if (deliverable && !result.meta.override) expect(kinds).toContain('transition');
  });

  it('journals the acknowledged skip and the override at start and end, and tags override output', () => {
    const entries = fx.journal().entries;
    const ack = entries.find((e) => e.kind === 'acknowledgement');
    expect(ack?.content).toContain('throwaway spike');
    const starts = entries.filter((e) => e.kind === 'override_start');
    const ends = entries.filter((e) => e.kind === 'override_end');
    expect(starts).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect(starts[0]!.content).toContain('production incident');
    expect(starts[0]!.session).toBe(ends[0]!.session);
  });

  it('an override unions the tool sets of the collapsed modes only and is not carried to another session', () => {
    const script = fx.script({ steps: [{ text: 'patched', output: DELIVERABLES.validator }] });
    const under = fx.invoke([
      ...base('validator'),
      '--override',
      files.override!,
      '--tool',
      'Write',
      '--substrate',
      `scripted:${script.path}`,
    ]);
    expect(under.result.status).toBe('completed');
    expect(under.result.output?.override_produced).toBe(true);
    expect(under.result.meta.tools).toContain('Write');
    expect(script.received()[0]!.tools.map((t) => t.name)).toContain('Write');
    // The same validator without the override: Write is refused again.
    const after = fx.invoke([
      ...base('validator'),
      '--handoff',
      files.artifact!,
      '--tool',
      'Write',
      ...NO_SUBSTRATE,
    ]);
    expect(after.result.meta.refusal_reason).toBe('mutating_tools_for_role');
    // An override collapsing exploration and planning grants scratch, never mutation.
    const narrow = fx.file('override-narrow.yaml', {
      type: 'operator_collapsed_modes',
      modes_collapsed: ['exploration', 'planning'],
      reason: 'design review in an hour needs options and a plan from one sitting',
      acknowledged_risks: ['the plan inherits the exploration framing'],
    });
    const refused = fx.invoke([
      ...base('explorer'),
      '--override',
      narrow,
      '--tool',
      'Write',
      ...NO_SUBSTRATE,
    ]);
    expect(refused.result.meta.refusal_reason).toBe('mutating_tools_for_role');
  });

  it('assistant engagement through the CLI: the question yields the turn, --continue carries the session on', () => {
    const task = fx.file('task.txt', 'What should we cache?');
    const script = fx.script({
      runs: [{ steps: [{ text: 'Staging or production?' }] }, { steps: [{ text: 'Production, then.' }] }],
    });
    const first = fx.invoke([
      '--persona',
      'team',
      '--role',
      'observer',
      '--surface',
      'sidebar-chat',
      '--engagement',
      'assistant',
      '--task-file',
      task,
      '--substrate',
      `scripted:${script.path}`,
    ]);
    // Exit 5: the session completed without its deliverable, so a shell chain stops here.
    expect(first.code).toBe(5);
    expect(first.result.outcome).toEqual({ type: 'turn_yielded', question: 'Staging or production?' });
    // Persona, role, surface and engagement come from the saved session.
    const second = fx.invoke([
      '--continue',
      first.result.meta.session_id,
      '--task',
      'production',
      '--substrate',
      `scripted:${script.path}`,
    ]);
    expect(second.code).toBe(0);
    expect(second.result.output?.text).toBe('Production, then.');
    const received = script.received();
    expect(received[0]!.messages[0]!.content).toContain('What should we cache?');
    expect(received[1]!.messages.map((m) => m.content)).toEqual([
      received[0]!.messages[0]!.content,
      'Staging or production?',
      'production',
    ]);
  });

  it('bad usage exits 2: an unknown role, an unknown surface, a mode that contradicts the role', () => {
    expect(fx.invoke([...base('conductor'), ...NO_SUBSTRATE]).code).toBe(2);
    expect(fx.invoke([...base('explorer', 'billboard'), ...NO_SUBSTRATE]).code).toBe(2);
    expect(fx.invoke([...base('explorer'), '--mode', 'execution', ...NO_SUBSTRATE]).code).toBe(2);
    expect(fx.invoke([...base('explorer'), '--substrate', 'quantum-oracle']).code).toBe(2);
  });
});
