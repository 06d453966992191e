import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CLI } from '../helpers/index.js';
import {
  ALL_ROLES_PROFILE,
  DELIVERABLES,
  HANDOFFS,
  NO_SUBSTRATE,
  type RuntimeFixture,
  roleArgs,
  runtimeFixture,
} from './runtime-fixture.js';

/**
 * What the runtime names and records, through the built CLI: FAILURE_CODES is exactly the set
 * of failures the pipeline emits (every one driven here), journal cells keep their characters,
 * `journal --type open` finds the open facet, a refused continuation is journaled under its own
 * session with the role asked for, and details read as English ("an artifact"). Each failed on
 * the build before (FIRSTLIGHT_CLI=<an older dist/cli/main.js>; FAILURE_CODES is read from the
 * runtime beside that CLI).
 */
describe('firstlight invoke: codes and the journal', { timeout: 180_000 }, () => {
  let fx: RuntimeFixture;
  const base = (role: string, surface = 'audit', engagement = 'agent') =>
    roleArgs('codes', role, surface, engagement);
  const scripted = (value: Record<string, unknown>) => fx.scripted(value);
  const thrice = (step: Record<string, unknown>) => ({ runs: [0, 1, 2].map(() => ({ steps: [step] })) });

  beforeAll(() => {
    fx = runtimeFixture();
    writeFileSync(
      join(fx.home, 'personas', 'codes.yaml'),
      stringify({
        ...ALL_ROLES_PROFILE,
        persona: 'codes',
        surface_profiles: {
          ...ALL_ROLES_PROFILE.surface_profiles,
          report: { structured_output: 'required', output_schema: { type: 'object', required: ['verdict'] } },
        },
      }),
    );
  });
  afterAll(() => fx.dispose());

  it('FAILURE_CODES equals the set of failures the pipeline emits', async () => {
    const runtime = (await import(pathToFileURL(join(dirname(CLI), '..', 'runtime', 'index.js')).href)) as {
      FAILURE_CODES: readonly string[];
    };
    const synthesis = fx.file('codes-synthesis.json', HANDOFFS.synthesis);
    const artifact = fx.builtArtifact('codes');
    const outcome = {
      outcome: { type: 'handoff_insufficient', missing: ['x'], proposed_resolution: 'maybe later' },
    };
    const redesign = {
      handoff: { findings: [{ id: 'f1', summary: 'start over', disposition: 'pivot', evidence: 'all' }] },
    };
    const cases: [string, string[]][] = [
      ['clarification_required', [...base('observer'), ...scripted({ steps: [{ text: 'Which one?' }] })]],
      [
        'density_exceeded',
        [...base('observer', 'real_time_stream'), ...scripted(thrice({ text: 'word '.repeat(200) }))],
      ],
      [
        'structured_output_invalid',
        [...base('observer', 'report'), ...scripted(thrice({ text: 'prose only' }))],
      ],
      ['deliverable_incomplete', [...base('explorer'), ...scripted(thrice({ text: 'no handoff' }))]],
      [
        'redesign_instead_of_finding',
        [...base('validator'), '--handoff', artifact, ...scripted(thrice({ text: 'F.', output: redesign }))],
      ],
      [
        'invalid_outcome',
        [...base('planner'), '--handoff', synthesis, ...scripted(thrice({ text: 'No.', output: outcome }))],
      ],
      ...(['budget_exhausted', 'substrate_unavailable', 'substrate_error', 'aborted'] as const).map(
        (fail): [string, string[]] => [fail, [...base('observer'), ...scripted({ steps: [{ fail }] })]],
      ),
    ];
    const emitted = new Set<string>();
    for (const [expected, args] of cases) {
      const { code, result } = fx.invoke(args);
      expect(code, `${expected}: ${JSON.stringify(result.meta)}`).toBe(1);
      expect(result.meta.failure_reason).toBe(expected);
      emitted.add(result.meta.failure_reason!);
    }
    expect([...emitted].sort()).toEqual([...runtime.FAILURE_CODES].sort());
  });

  it("journal cells keep their characters: a value's ';' is escaped, never rewritten", () => {
    const override = fx.file(
      'semicolon-override.yaml',
      'type: operator_collapsed_modes\nmodes_collapsed: [execution]\n',
    );
    const { result } = fx.invoke([...base('builder'), '--override', override, ...NO_SUBSTRATE]);
    expect(result.meta.refusal_reason).toBe('invalid_override');
    expect(result.meta.detail).toContain(';');
    const row = fx.journal(['--type', 'refusal']).entries.find((e) => e.session === result.meta.session_id);
    expect(row?.fields.detail).toBe(result.meta.detail);
  });

  it('journal --type open finds the open facet (handoff_insufficient, turn_yielded)', () => {
    fx.invoke([
      ...base('observer', 'sidebar-chat', 'assistant'),
      ...scripted({ steps: [{ text: 'Staging or production?' }] }),
    ]);
    const open = fx.journal(['--type', 'open']).entries;
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((e) => e.facet === 'open')).toBe(true);
    expect(open.map((e) => e.kind)).toContain('turn_yielded');
  });

  it('a same_session_transition refusal is journaled under a new session id, with the role that was asked for', () => {
    const explorer = fx.invoke([
      ...base('explorer'),
      ...scripted({ steps: [{ text: 'x', output: DELIVERABLES.explorer }] }),
    ]);
    const id = explorer.result.meta.session_id;
    const { code, result } = fx.invoke([...base('planner'), '--continue', id, ...NO_SUBSTRATE]);
    expect(code).toBe(3);
    expect(result.meta.refusal_reason).toBe('same_session_transition');
    expect(result.meta.session_id).not.toBe(id);
    const row = fx
      .journal(['--type', 'refusal'])
      .entries.find((e) => e.fields.reason === 'same_session_transition');
    expect(row?.session).toBe(result.meta.session_id);
    expect(row?.fields.role).toBe('planner');
    expect(row?.fields.continue).toBe(id);
  });

  it('details read as English: "an artifact", "an acknowledgement"', () => {
    const { result } = fx.invoke([...base('validator'), ...NO_SUBSTRATE]);
    expect(result.meta.refusal_reason).toBe('missing_handoff');
    expect(result.meta.detail).toMatch(/needs an artifact or revision handoff/);
  });
});
