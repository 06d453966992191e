import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { UserError } from '../../../src/core/index.js';
import {
  createMemoryLedger,
  createRuntime,
  type InvokeRequest,
  type InvokeResult,
  type Ledger,
  ScriptedSubstrate,
} from '../../../src/runtime/index.js';
import { type Admission, checkPolicy } from '../../../src/runtime/pipeline/check-policy.js';
import { composePrompt } from '../../../src/runtime/pipeline/compose-prompt.js';
import { finish } from '../../../src/runtime/pipeline/finish.js';
import type { RuntimeContext } from '../../../src/runtime/pipeline/invocation.js';
import { journalStart } from '../../../src/runtime/pipeline/journal-start.js';
import { type LockedTools, lockTools } from '../../../src/runtime/pipeline/lock-tools.js';
import { resolveProfile } from '../../../src/runtime/pipeline/resolve-profile.js';
import {
  type ResolvedSubstrate,
  resolveSessionSubstrate,
} from '../../../src/runtime/pipeline/resolve-substrate.js';
import { runSession } from '../../../src/runtime/pipeline/run-session.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

/**
 * The eight stages of docs/runtime.md, each run alone on a ledger in memory (nothing written to
 * disk), with what the stages before it would have handed it.
 */

const SYNTHESIS = { possibilities: ['a'], tensions: ['b'], unknowns: ['c'], frames: ['d'] };
const PLAN = {
  kind: 'plan',
  content: {
    assumptions: ['reads dominate'],
    scope: { in: ['GET'], out: ['writes'] },
    deferred: ['eviction'],
    would_invalidate: ['writes over 30%'],
  },
};

let home: { dir: string; dispose: () => void };
let project: { dir: string; dispose: () => void };
let ledger: Ledger;
let context: RuntimeContext;

beforeAll(() => {
  home = exampleHomeCopy();
  project = tempDir('firstlight-project-');
  writeFileSync(
    join(home.dir, 'personas', 'rules.yaml'),
    stringify({
      persona: 'rules',
      system_prompt_uri: 'prompts/explorer.md',
      role_default: 'explorer',
      roles: ['explorer', 'builder'],
      servers: { files: { access: 'read_only', tools: ['read_*'] } },
    }),
  );
  ledger = createMemoryLedger();
  context = createRuntime({ home: home.dir, project: project.dir, cwd: project.dir, ledger }).context;
});
afterAll(() => {
  home.dispose();
  project.dispose();
});

const request = (extra: Partial<InvokeRequest> = {}): InvokeRequest => ({
  persona: 'explorer',
  surface: 'synthesis-ledger',
  engagement: 'agent',
  task: 'map the options',
  ...extra,
});

const STEPS = [
  { text: 'Reading.', tool_calls: [{ name: 'files__write_file', input: { path: 'x' } }] },
  { text: 'Two frames.', output: { handoff: SYNTHESIS } },
];
/** A session that calls a tool outside any lock, then answers with a synthesis (each retry the same). */
const explorerRun = () =>
  new ScriptedSubstrate({ runs: [{ steps: STEPS }, { steps: STEPS }, { steps: STEPS }] });

const refused = (value: unknown): value is InvokeResult =>
  typeof value === 'object' && value !== null && 'status' in value;

describe('stage 1, resolveProfile', () => {
  it("takes the profile's role_default, fills the meta, and names the ledger's journal reference", () => {
    const inv = resolveProfile(context, request());
    expect([inv.role.name, inv.mode, inv.surface, inv.voice]).toEqual([
      'explorer',
      'exploration',
      'synthesis-ledger',
      'persona',
    ]);
    expect(inv.meta.journal).toBe(`memory:journal#${inv.meta.session_id}`);
    expect(inv.ledger).toBe(ledger);
  });

  it('throws bad usage for a mode the role is not bound to, and adds task servers under their rule', () => {
    expect(() => resolveProfile(context, request({ mode: 'execution' }))).toThrow(UserError);
    const inv = resolveProfile(
      context,
      request({ persona: 'rules', servers: { files: { command: 'node', args: ['fs.js'] } } }),
    );
    expect(inv.profile.taskRelevant).toEqual(['files']);
    expect(inv.profile.servers.files).toMatchObject({
      command: 'node',
      args: ['fs.js'],
      access: 'read_only',
      tools: ['read_*'],
    });
    expect(() => resolveProfile(context, request({ servers: { 'bad name': { command: 'x' } } }))).toThrow(
      /letters, digits/,
    );
  });
});

describe('stage 2, checkPolicy', () => {
  it('admits an explorer with read-only access', async () => {
    const admission = await checkPolicy(resolveProfile(context, request()));
    expect(refused(admission)).toBe(false);
    expect((admission as Admission).access).toBe('read_only');
  });

  it('refuses a builder without a plan, journaled, before anything starts', async () => {
    const inv = resolveProfile(context, request({ persona: 'builder', surface: 'code-output' }));
    const result = await checkPolicy(inv);
    expect(refused(result) && result.meta.refusal_reason).toBe('missing_handoff');
    const rows = await ledger.readJournal({ type: 'refusal' });
    expect(rows.at(-1)?.session).toBe(inv.meta.session_id);
  });
});

describe('stage 3, resolveSessionSubstrate', () => {
  it("takes the request's substrate, with no sandbox for one that runs no tools of its own", async () => {
    const inv = resolveProfile(context, request({ substrate: explorerRun() }));
    const resolved = (await resolveSessionSubstrate(
      inv,
      (await checkPolicy(inv)) as Admission,
    )) as ResolvedSubstrate;
    expect(resolved.substrate.kind).toBe('scripted');
    expect(resolved.sandbox.request).toBeUndefined();
  });
});

describe('stage 4, lockTools', () => {
  it("locks the role's set, removing the agent built-ins a read-only role may not hold", async () => {
    const inv = resolveProfile(context, request());
    const tools = (await lockTools(inv, (await checkPolicy(inv)) as Admission, () => {})) as LockedTools;
    expect([...tools.locked.keys()]).toEqual([]);
    expect(tools.removed).toEqual(expect.arrayContaining(['Write', 'Bash']));
  });
});

describe('stages 5 to 8: journalStart, composePrompt, runSession, finish', () => {
  it('journals the start and imports, composes the prompt, rejects a call outside the lock, stores the handoff', async () => {
    const planFile = join(project.dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify(PLAN));
    const inv = resolveProfile(
      context,
      request({ persona: 'builder', surface: 'code-output', handoffs: [planFile], substrate: explorerRun() }),
    );
    const admission = (await checkPolicy(inv)) as Admission;
    const resolved = (await resolveSessionSubstrate(inv, admission)) as ResolvedSubstrate;
    const tools = (await lockTools(inv, admission, () => {})) as LockedTools;

    // 5: the start row and the plan's import row, with its sha256.
    const records = await journalStart(inv, admission, tools, resolved.sandbox, { session_type: 'one_shot' });
    const rows = await ledger.readJournal();
    const start = rows.find((r) => r.kind === 'session_start' && r.session === inv.meta.session_id)!;
    expect(start.fields).toMatchObject({ role: 'builder', session_type: 'one_shot' });
    const imported = rows.find((r) => r.kind === 'import' && r.session === inv.meta.session_id)!;
    expect(imported.fields.sha256).toBe((await ledger.getHandoff(records[0]!.id))!.sha256);

    // 6: the body, the mode's scaffolding, the deliverable's shape; the plan in the first message.
    const composed = await composePrompt(inv, admission, records);
    expect(composed.systemPrompt).toContain('You are building.');
    expect(composed.systemPrompt).toContain('"artifact"');
    expect(composed.messages.at(-1)!.content).toContain('reads dominate');

    // 7: the call outside the lock is denied and journaled; the answer is read.
    const run = await runSession(inv, admission, tools, resolved, composed);
    // Three attempts (the first and two retries), each calling it once.
    expect(inv.meta.denials).toEqual(
      Array.from({ length: 3 }, () => ({ tool: 'files__write_file', reason: 'not_in_session_tool_set' })),
    );
    expect((await ledger.readJournal({ type: 'denial' })).at(-1)?.fields.tool).toBe('files__write_file');
    expect(run.prose).toBe('Two frames.');

    // 8: a builder's handoff must be an artifact: this answer is not, so it failed its retries.
    const result = await finish(inv, admission, records, resolved, composed, run);
    expect(result.status).toBe('failed');
    expect(result.meta.failure_reason).toBe('deliverable_incomplete');
    const end = (await ledger.readJournal({ type: 'session_end' })).at(-1)!;
    expect(end.fields).toMatchObject({ status: 'failed', failure: 'deliverable_incomplete', denials: '3' });
  });

  it('finish stores a complete handoff hashed in its transition row', async () => {
    const inv = resolveProfile(context, request({ substrate: explorerRun() }));
    const admission = (await checkPolicy(inv)) as Admission;
    const resolved = (await resolveSessionSubstrate(inv, admission)) as ResolvedSubstrate;
    const tools = (await lockTools(inv, admission, () => {})) as LockedTools;
    const records = await journalStart(inv, admission, tools, resolved.sandbox);
    const composed = await composePrompt(inv, admission, records);
    const run = await runSession(inv, admission, tools, resolved, composed);
    const result = await finish(inv, admission, records, resolved, composed, run);
    expect(result.status).toBe('completed');
    const transition = (await ledger.readJournal({ type: 'transition' })).at(-1)!;
    expect(transition.fields.handoff).toBe(result.meta.handoff_id);
    expect(transition.fields.sha256).toBe((await ledger.getHandoff(result.meta.handoff_id!))!.sha256);
  });
});
