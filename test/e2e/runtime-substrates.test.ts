/**
 * The persona runtime on the `anthropic` substrate, against the scripted model server on
 * loopback: the seed's multi-role workflow leaves the same journal as on the scripted
 * substrate, and a validator's model request carries none of the mutating tools.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, toolNames, toolResults } from '../hosts/model-server.js';
import {
  answerText,
  createRuntime,
  journalShape,
  runWorkflow,
  SEED_WORKFLOW,
  scriptedUpToValidator,
  scriptFiles,
  workflowPlace,
  writeMemoryAuditor,
} from '../hosts/workflow.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('the seed workflow on the anthropic substrate', () => {
  it('completes every session and leaves the journal the scripted run leaves', async () => {
    const scripted = workflowPlace('scripted');
    roots.push(scripted.root);
    const files = scriptFiles(scripted.root);
    const scriptedRuntime = createRuntime({ home: scripted.home, project: scripted.project, env: {} });
    const scriptedResults = await runWorkflow(scriptedRuntime, (i) => `scripted:${files[i]}`);
    expect(scriptedResults.map((r) => r.status)).toEqual(SEED_WORKFLOW.map(() => 'completed'));

    await using model = await startModelServer({
      script: SEED_WORKFLOW.map((step) => ({ text: answerText(step) })),
    });
    const api = workflowPlace('anthropic', 'substrates:\n  retry: { base_delay_ms: 5, max_delay_ms: 20 }');
    roots.push(api.root);
    const runtime = createRuntime({
      home: api.home,
      project: api.project,
      env: { ANTHROPIC_API_KEY: 'sk-ant-scripted', ANTHROPIC_BASE_URL: model.url },
    });
    const results = await runWorkflow(runtime, () => 'anthropic:claude-scripted');
    expect(results.map((r) => [r.status, r.meta.detail])).toEqual(
      SEED_WORKFLOW.map(() => ['completed', undefined]),
    );
    model.assertComplete();
    expect(results.every((r) => r.meta.substrate === 'anthropic')).toBe(true);
    expect(results[0]!.meta.usage).toMatchObject({ inputTokens: 10 });
    const shape = await journalShape(runtime);
    expect(shape.length).toBeGreaterThanOrEqual(SEED_WORKFLOW.length * 2);
    expect(shape).toEqual(await journalShape(scriptedRuntime));
    if (process.env.SHOW_SHAPE) console.log(shape.join('\n'));
    // Each session fresh: one model request each, holding only its own task and handoff.
    expect(model.turns).toHaveLength(SEED_WORKFLOW.length);
    for (const turn of model.turns) expect((turn.body as { messages: unknown[] }).messages).toHaveLength(1);
  });
});

describe('a validator on the anthropic substrate', () => {
  it('sends the model no mutating tool, and a call to one is refused and journaled by the runtime', async () => {
    const place = workflowPlace('anthropic-validator');
    roots.push(place.root);
    writeMemoryAuditor(place, 'anthropic:claude-scripted');
    const read = await scriptedUpToValidator(place);
    await using model = await startModelServer({
      script: [
        { toolCalls: [{ id: 'w', name: 'memory__create_entities', input: { entities: [] } }] },
        { toolCalls: [{ id: 'r', name: 'memory__read_graph', input: {} }] },
        { text: answerText(SEED_WORKFLOW[3]!) },
      ],
    });
    // No --substrate: the profile names anthropic.
    const runtime = createRuntime({
      home: place.home,
      project: place.project,
      env: { ANTHROPIC_API_KEY: 'sk-ant-scripted', ANTHROPIC_BASE_URL: model.url },
    });
    const result = await runtime.invoke({
      persona: 'memory-auditor',
      role: 'validator',
      surface: 'audit',
      engagement: 'agent',
      task: 'Validate the artifact.',
      handoffs: [read],
    });
    expect(result.status, result.meta.detail).toBe('completed');
    expect(result.meta.substrate).toBe('anthropic');
    for (const turn of model.turns)
      expect(toolNames(turn).sort()).toEqual([
        'memory__open_nodes',
        'memory__read_graph',
        'memory__search_nodes',
      ]);
    const sent = toolResults(model.turns[2]!);
    expect(sent.find((r) => r.callId === 'w')).toMatchObject({
      isError: true,
      text: expect.stringContaining('denied'),
    });
    expect(sent.find((r) => r.callId === 'r')?.text).toContain('entities');
    expect(result.meta.denials).toEqual([
      { tool: 'memory__create_entities', reason: 'not_in_session_tool_set' },
    ]);
    expect(
      (await runtime.journal()).some(
        (e) => e.kind === 'denial' && e.title.includes('memory__create_entities'),
      ),
    ).toBe(true);
  });

  it('without a key, fails naming ANTHROPIC_API_KEY before any model request', async () => {
    await using model = await startModelServer();
    const place = workflowPlace('anthropic-nokey');
    roots.push(place.root);
    const runtime = createRuntime({
      home: place.home,
      project: place.project,
      env: { ANTHROPIC_BASE_URL: model.url },
    });
    const result = await runtime.invoke({
      persona: 'explorer',
      role: 'explorer',
      surface: 'synthesis-ledger',
      engagement: 'agent',
      task: 'Explore.',
      substrate: 'anthropic',
    });
    expect(result.status).toBe('failed');
    expect(result.meta.failure_reason).toBe('substrate_unavailable');
    expect(result.meta.detail).toContain('ANTHROPIC_API_KEY');
    expect(model.all).toHaveLength(0);
  });
});
