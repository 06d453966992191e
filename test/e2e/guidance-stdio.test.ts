import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  exampleHomeCopy,
  REPO_ROOT,
  runCli,
  runInspector,
  structured,
  tempDir,
  tempHome,
  textOf,
  type Wired,
  wireStdio,
} from '../helpers/index.js';

const EMBEDDED_DIR = join(REPO_ROOT, 'assets', 'guidance');
const EMBEDDED = readdirSync(EMBEDDED_DIR)
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.replace(/\.md$/, ''));

const OVERRIDE = `---
name: coding-guidelines
title: Project Coding Rules
description: This project's own rules.
directive: Follow PROJECT-RULE-7 in every change.
---

# Project Coding Rules

PROJECT-RULE-7: every public function has a doc comment.
`;

const EXTRA = `---
name: release-checklist
description: How we cut a release here.
directive: Walk this checklist before tagging.
---

# Release checklist

Bump the version, update the changelog, tag.
`;

const TASK = 'Add retry with exponential backoff to the invoice queue consumer (TASK-MARKER-42).';

interface TaskspaceResult {
  status: string;
  taskspace: { name: string; description: string; initial_prompt: string | null } | null;
  file: string | null;
}

function promptText(result: { messages: { content: { type: string; text?: string } }[] }): string {
  expect(result.messages).toHaveLength(1);
  const content = result.messages[0]!.content;
  expect(content.type).toBe('text');
  return content.text ?? '';
}

describe('guidance over stdio (built CLI, SDK Client)', () => {
  const home = exampleHomeCopy();
  const project = tempDir('firstlight-project-');
  const workdir = join(project.dir, 'packages', 'api');
  let wired: Wired;

  beforeAll(async () => {
    mkdirSync(workdir, { recursive: true });
    mkdirSync(join(project.dir, '.firstlight', 'guidance'), { recursive: true });
    writeFileSync(join(project.dir, '.firstlight', 'guidance', 'coding-guidelines.md'), OVERRIDE);
    writeFileSync(join(project.dir, '.firstlight', 'guidance', 'release-checklist.md'), EXTRA);
    // The taskspace is created the way a launcher would: through the CLI.
    const created = await runCli([
      'taskspace',
      '--home',
      home.dir,
      '--project',
      project.dir,
      '--set-name',
      'Invoice retries',
      '--set-description',
      'Retry failed invoice deliveries',
      '--initial-prompt',
      TASK,
      '--json',
    ]);
    expect(created.status, created.stderr).toBe(0);
    // The server starts below the project root: it must find the project by walking up.
    wired = await wireStdio(['serve', '--home', home.dir], { cwd: workdir });
  });
  afterAll(async () => {
    await wired.close();
    home.dispose();
    project.dispose();
  });

  it('lists every doc as a text/markdown resource and reads each one', async () => {
    const { resources } = await wired.client.listResources();
    const names = resources.map((r) => r.name).sort();
    expect(names).toEqual([...new Set([...EMBEDDED, 'release-checklist'])].sort());
    for (const resource of resources) {
      expect(resource.uri).toBe(`firstlight://guidance/${resource.name}`);
      expect(resource.mimeType).toBe('text/markdown');
      const read = await wired.client.readResource({ uri: resource.uri });
      expect(read.contents).toHaveLength(1);
      const content = read.contents[0] as { uri: string; mimeType: string; text: string };
      expect(content.uri).toBe(resource.uri);
      expect(content.mimeType).toBe('text/markdown');
      if (EMBEDDED.includes(resource.name) && resource.name !== 'coding-guidelines') {
        expect(content.text).toBe(readFileSync(join(EMBEDDED_DIR, `${resource.name}.md`), 'utf8'));
      }
    }
  });

  it('lets a project override replace an embedded doc and add a new one', async () => {
    const read = await wired.client.readResource({ uri: 'firstlight://guidance/coding-guidelines' });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toBe(OVERRIDE);
    expect(text).not.toBe(readFileSync(join(EMBEDDED_DIR, 'coding-guidelines.md'), 'utf8'));
    const { resources } = await wired.client.listResources();
    expect(resources.filter((r) => r.name === 'coding-guidelines')).toHaveLength(1);
    expect(resources.find((r) => r.name === 'coding-guidelines')?.title).toBe('Project Coding Rules');
    const extra = await wired.client.readResource({ uri: 'firstlight://guidance/release-checklist' });
    expect((extra.contents[0] as { text: string }).text).toBe(EXTRA);
  });

  it('answers an unknown doc with the resource-not-found protocol error', async () => {
    const failure = await wired.client.readResource({ uri: 'firstlight://guidance/no-such-doc' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(-32002);
    // Exactly one "MCP error -32002: " prefix (the client adds it), then the message and the fix.
    const uris = ['collaboration-patterns', 'walkthrough-format', 'coding-guidelines', 'release-checklist'];
    expect((failure as McpError).message).toBe(
      `MCP error -32002: resource firstlight://guidance/no-such-doc not found\n  fix: read one of: ${uris.map((n) => `firstlight://guidance/${n}`).join(', ')}`,
    );
    expect((failure as McpError).data).toEqual({ uri: 'firstlight://guidance/no-such-doc' });
  });

  it('assembles yiasou with every doc inline and the initial task; hi and expand_reference agree', async () => {
    const { prompts } = await wired.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['hi', 'yiasou']);
    expect(prompts.find((p) => p.name === 'yiasou')?.arguments?.map((a) => a.name)).toEqual(['collaborator']);

    const text = promptText(await wired.client.getPrompt({ name: 'yiasou' }));
    expect(text.startsWith('# Hi, welcome!')).toBe(true);
    const { resources } = await wired.client.listResources();
    for (const resource of resources) {
      const read = await wired.client.readResource({ uri: resource.uri });
      const body = (read.contents[0] as { text: string }).text.replace(/^---[\s\S]*?---\n/, '').trim();
      expect(text, resource.name).toContain(body);
      expect(text).toContain(`<guidance name="${resource.name}" uri="${resource.uri}">`);
    }
    expect(text).toContain('<directive>Follow PROJECT-RULE-7 in every change.</directive>');
    expect(text).not.toContain('Follow these practices in all code work.'); // the replaced directive
    expect(text).toContain(`<initial_task>\n${TASK}\n</initial_task>`);
    expect(text).toContain('<name>Invoice retries</name>');
    expect(text).toContain('<description>Retry failed invoice deliveries</description>');

    const hi = promptText(await wired.client.getPrompt({ name: 'hi' }));
    expect(hi).toBe(text);
    const expanded = await wired.client.callTool({ name: 'expand_reference', arguments: { ref: 'yiasou' } });
    expect(expanded.isError).toBeFalsy();
    expect(textOf(expanded)).toBe(text);
    expect(structured<{ kind: string; text: string }>(expanded)).toMatchObject({ kind: 'boot-prompt', text });

    const withCollaborator = promptText(
      await wired.client.getPrompt({ name: 'yiasou', arguments: { collaborator: 'Alex' } }),
    );
    expect(withCollaborator).toContain('working with Alex');
    const expandedWith = await wired.client.callTool({
      name: 'expand_reference',
      arguments: { ref: 'hi', collaborator: 'Alex' },
    });
    expect(textOf(expandedWith)).toBe(withCollaborator);
  });

  it('expands a guidance name to that doc and rejects unknown refs with the valid ones', async () => {
    const doc = await wired.client.callTool({
      name: 'expand_reference',
      arguments: { ref: 'walkthrough-format' },
    });
    expect(textOf(doc)).toBe(readFileSync(join(EMBEDDED_DIR, 'walkthrough-format.md'), 'utf8'));
    const unknown = await wired.client.callTool({ name: 'expand_reference', arguments: { ref: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/unknown reference "nope"/);
    for (const ref of ['yiasou', 'hi', ...EMBEDDED, 'release-checklist'])
      expect(textOf(unknown)).toContain(ref);
  });

  it('lists the docs and the taskspace in the packet', async () => {
    const packet = structured<{
      guidance: { uri: string; name: string; directive: string }[];
      taskspace: TaskspaceResult['taskspace'];
      available_mind_tools: string[];
    }>(await wired.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'g1' } }));
    expect(packet.guidance.map((g) => g.name)).toContain('walkthrough-format');
    for (const entry of packet.guidance) {
      expect(entry.uri).toBe(`firstlight://guidance/${entry.name}`);
      expect(entry.directive.length).toBeGreaterThan(20);
    }
    expect(packet.taskspace).toMatchObject({
      name: 'Invoice retries',
      description: 'Retry failed invoice deliveries',
      initial_prompt: TASK,
    });
    for (const tool of ['get_taskspace', 'update_taskspace', 'expand_reference']) {
      expect(packet.available_mind_tools).toContain(tool);
    }
  });

  it('clears initial_prompt on the first update_taskspace, and says so', async () => {
    const before = structured<TaskspaceResult>(
      await wired.client.callTool({ name: 'get_taskspace', arguments: {} }),
    );
    expect(before.status).toBe('ok');
    expect(before.taskspace?.initial_prompt).toBe(TASK);
    expect(before.file).toBe(join(project.dir, '.firstlight', 'taskspace.json'));

    const update = await wired.client.callTool({
      name: 'update_taskspace',
      arguments: { name: 'Invoice retry backoff', description: 'Exponential backoff for invoice delivery' },
    });
    const updated = structured<{ initial_prompt_cleared: boolean; message: string }>(update);
    expect(updated.initial_prompt_cleared).toBe(true);
    expect(updated.message).toContain('initial prompt cleared');

    const after = structured<TaskspaceResult>(
      await wired.client.callTool({ name: 'get_taskspace', arguments: {} }),
    );
    expect(after.taskspace).toEqual({
      id: expect.stringMatching(/^task-[0-9a-f]{12}$/),
      name: 'Invoice retry backoff',
      description: 'Exponential backoff for invoice delivery',
      initial_prompt: null,
    });
    const again = structured<{ initial_prompt_cleared: boolean }>(
      await wired.client.callTool({
        name: 'update_taskspace',
        arguments: { description: 'Backoff, with jitter' },
      }),
    );
    expect(again.initial_prompt_cleared).toBe(false);

    const text = promptText(await wired.client.getPrompt({ name: 'yiasou' }));
    expect(text).not.toContain('<initial_task>');
    expect(text).not.toContain('TASK-MARKER-42');
    expect(text).toContain('<name>Invoice retry backoff</name>');
    expect(text).toContain('already taken up');
  });

  it('still assembles the prompt, without a task block, when taskspace.json is corrupt', async () => {
    const file = join(project.dir, '.firstlight', 'taskspace.json');
    writeFileSync(file, '{"name": "half-written');
    const text = promptText(await wired.client.getPrompt({ name: 'yiasou' }));
    expect(text).not.toContain('<taskspace_context>');
    expect(text).toContain('Ask the user what they would like to work on');
    expect(text).toContain('<guidance name="walkthrough-format"');
    const expanded = await wired.client.callTool({ name: 'expand_reference', arguments: { ref: 'yiasou' } });
    expect(textOf(expanded)).toBe(text);

    const packet = structured<{ taskspace: unknown; degraded_mode: { reasons: string[] } }>(
      await wired.client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(packet.taskspace).toBeNull();
    expect(packet.degraded_mode.reasons.some((r) => r.startsWith('taskspace:') && r.includes(file))).toBe(
      true,
    );

    const got = structured<TaskspaceResult & { problem: string }>(
      await wired.client.callTool({ name: 'get_taskspace', arguments: {} }),
    );
    expect(got.status).toBe('unreadable');
    expect(got.problem).toMatch(/not valid JSON/);
    const refused = await wired.client.callTool({ name: 'update_taskspace', arguments: { name: 'x' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('TASKSPACE_UNREADABLE');
    expect(readFileSync(file, 'utf8')).toBe('{"name": "half-written'); // nothing lost
  });
});

describe('firstlight taskspace (built CLI)', () => {
  it('creates, edits and shows a taskspace; refuses a corrupt one with exit 2', async () => {
    const project = tempDir('firstlight-project-');
    const home = tempHome('firstlight-taskspace-home-');
    try {
      const shown = await runCli(['taskspace', '--home', home.dir, '--project', project.dir]);
      expect(shown.status).toBe(0);
      expect(shown.stdout).toContain('no taskspace');

      const created = await runCli([
        'taskspace',
        '--home',
        home.dir,
        '--project',
        project.dir,
        '--set-name',
        'Demo',
        '--initial-prompt',
        'Say hi',
      ]);
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toContain('taskspace created');

      const edited = await runCli([
        'taskspace',
        '--home',
        home.dir,
        '--project',
        project.dir,
        '--set-description',
        'A demo',
        '--json',
      ]);
      expect(edited.status).toBe(0);
      expect(JSON.parse(edited.stdout)).toMatchObject({
        created: false,
        initial_prompt_cleared: false,
        taskspace: { name: 'Demo', description: 'A demo', initial_prompt: 'Say hi' },
      });

      const cleared = await runCli([
        'taskspace',
        '--home',
        home.dir,
        '--project',
        project.dir,
        '--clear-initial-prompt',
      ]);
      expect(cleared.stdout).toContain('(initial prompt cleared)');

      const json = await runCli(['taskspace', '--home', home.dir, '--json'], { cwd: project.dir });
      expect(JSON.parse(json.stdout)).toMatchObject({ status: 'ok', taskspace: { initial_prompt: null } });

      writeFileSync(join(project.dir, '.firstlight', 'taskspace.json'), '[1, 2]');
      const corrupt = await runCli(['taskspace', '--home', home.dir, '--project', project.dir]);
      expect(corrupt.status).toBe(2);
      expect(corrupt.stderr).toContain('top level must be a JSON object');
      expect(corrupt.stderr).toContain('fix:');

      const bad = await runCli([
        'taskspace',
        '--home',
        home.dir,
        '--project',
        project.dir,
        '--initial-prompt',
        'x',
        '--clear-initial-prompt',
      ]);
      expect(bad.status).toBe(2);
      const help = await runCli(['taskspace', '--home', home.dir, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('--initial-prompt');
    } finally {
      project.dispose();
      home.dispose();
    }
  });
});

// npx may fetch the Inspector on a cold cache: more time than the default.
describe('guidance through the MCP Inspector CLI', { timeout: 180_000 }, () => {
  it('gets the yiasou prompt and reads a guidance resource', async () => {
    const home = exampleHomeCopy();
    const run = (...args: string[]) =>
      runInspector([process.execPath, CLI, 'serve', '--home', home.dir, ...args]);
    try {
      const prompt = await run(
        '--method',
        'prompts/get',
        '--prompt-name',
        'hi',
        '--prompt-args',
        'collaborator=Sam',
      );
      expect(prompt.status, prompt.stderr).toBe(0);
      const text: string = JSON.parse(prompt.stdout).messages[0].content.text;
      expect(text).toContain('working with Sam');
      for (const name of EMBEDDED) expect(text).toContain(`<guidance name="${name}"`);
      const read = await run(
        '--method',
        'resources/read',
        '--uri',
        'firstlight://guidance/walkthrough-format',
      );
      expect(read.status, read.stderr).toBe(0);
      expect(JSON.parse(read.stdout).contents[0]).toMatchObject({
        mimeType: 'text/markdown',
        text: readFileSync(join(EMBEDDED_DIR, 'walkthrough-format.md'), 'utf8'),
      });
    } finally {
      home.dispose();
    }
  });
});
