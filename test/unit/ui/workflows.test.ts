import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJournal, type JournalWrite } from '../../../src/runtime/index.js';
import { handoffGraph } from '../../../src/ui/handoff-graph.js';
import { readWorkflows } from '../../../src/ui/workflows.js';
import { tempDir } from '../../helpers/index.js';

const base = (role: string, mode: string) => ({
  persona: role,
  role,
  mode,
  surface: 'code-output',
  engagement: 'agent',
});

/** The rows invoke writes for one session, in its words. */
function session(
  id: string,
  role: string,
  mode: string,
  options: { reads?: string; makes?: [string, string, string] },
) {
  const rows: JournalWrite[] = [
    {
      kind: 'session_start',
      title: `${role} as ${role} in ${mode}`,
      session: id,
      fields: { ...base(role, mode), handoffs: options.reads },
    },
  ];
  if (options.makes) {
    const [kind, handoff, to] = options.makes;
    rows.push({
      kind: 'transition',
      title: `${mode} → ${to} (${kind} handoff ${handoff})`,
      session: id,
      fields: { ...base(role, mode), handoff },
    });
  }
  return rows;
}
const end = (id: string, role: string, mode: string): JournalWrite => ({
  kind: 'session_end',
  title: `completed: ${role} as ${role}`,
  session: id,
  fields: { ...base(role, mode), status: 'completed', attempts: 1 },
});

describe('the journal read as workflows', () => {
  let dir: { dir: string; dispose: () => void };
  let journal: string;
  beforeEach(() => {
    dir = tempDir('firstlight-ui-journal-');
    journal = join(dir.dir, 'journal');
  });
  afterEach(() => dir.dispose());

  it('joins the sessions a handoff links, keeps a refused one apart, and marks denials and insufficient handoffs', async () => {
    const t = (s: number) => new Date(Date.UTC(2026, 10, 28, 9, 0, s));
    await appendJournal(
      journal,
      [
        ...session('s1', 'explorer', 'exploration', { makes: ['synthesis', 'synthesis-1', 'planning'] }),
        end('s1', 'explorer', 'exploration'),
      ],
      t(1),
    );
    await appendJournal(journal, [...session('s2', 'planner', 'planning', { reads: 'synthesis-1' })], t(2));
    await appendJournal(
      journal,
      [
        {
          kind: 'denial',
          title: 'Write refused to planner at execution',
          session: 's2',
          fields: { ...base('planner', 'planning'), tool: 'Write', reason: 'not_in_session_tool_set' },
        },
        {
          kind: 'handoff_insufficient',
          title: 'planner cannot proceed on synthesis-1',
          session: 's2',
          fields: {
            ...base('planner', 'planning'),
            handoffs: 'synthesis-1',
            missing: 'a tradeoff',
            proposed_resolution: 'request fresh upstream session',
          },
        },
        end('s2', 'planner', 'planning'),
      ],
      t(3),
    );
    await appendJournal(
      journal,
      [
        {
          kind: 'refusal',
          title: 'missing_handoff (builder as builder)',
          session: 's3',
          fields: {
            ...base('builder', 'execution'),
            reason: 'missing_handoff',
            detail: 'builder needs a plan handoff',
          },
        },
      ],
      t(4),
    );
    const { workflows, entries } = readWorkflows(journal);
    expect(entries).toBe(8);
    expect(workflows.map((w) => w.sessions.map((s) => s.id))).toEqual([['s3'], ['s1', 's2']]);
    const [refused, chain] = workflows;
    expect(refused!.sessions[0]).toMatchObject({
      status: 'refused',
      refusal: { reason: 'missing_handoff' },
      role: 'builder',
    });
    const [explorer, planner] = chain!.sessions;
    expect(explorer).toMatchObject({
      status: 'completed',
      produced: { id: 'synthesis-1', kind: 'synthesis', to: 'planning' },
    });
    expect(planner).toMatchObject({
      inputs: ['synthesis-1'],
      denials: [{ tool: 'Write', reason: 'not_in_session_tool_set' }],
    });
    expect(planner!.insufficient).toEqual({
      missing: 'a tradeoff',
      proposed: 'request fresh upstream session',
    });

    const graph = handoffGraph(chain!).text;
    expect(graph.match(/class="node-link"/g)).toHaveLength(2);
    expect(graph).toContain('aria-label="synthesis handoff synthesis-1 from explorer to planner"');
    expect(graph).toContain('href="/runtime/handoff/synthesis-1"');
    expect(graph).toContain('⊘ 1 denied');
    expect(graph).toContain('⚠ insufficient');
    expect(graph).not.toContain('not run yet');
    expect(handoffGraph(refused!).text).toContain('node node-bad');
  });

  it('draws a handoff nobody read yet into the column of the role that reads it', async () => {
    await appendJournal(journal, [
      ...session('s1', 'builder', 'execution', { makes: ['artifact', 'artifact-1', 'validation'] }),
      end('s1', 'builder', 'execution'),
    ]);
    const [only] = readWorkflows(journal).workflows;
    const graph = handoffGraph(only!).text;
    expect(graph).toContain(
      'aria-label="artifact handoff artifact-1 from builder to validator (not run yet)"',
    );
    expect(graph).toContain('node-ghost');
  });

  it('is empty without a journal', () => {
    expect(readWorkflows(join(dir.dir, 'none'))).toEqual({ workflows: [], entries: 0 });
  });
});
