/**
 * Guidance and taskspaces as a client written for the Symposium guidance server uses them: the
 * resource it calls `main.md`, a boot prompt that tells the agent which resources to load, and
 * the taskspace state protocol where a request with neither name nor description is a read.
 * Real MCP clients against the built CLI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, exampleHomeCopy, runCli, structured, tempDir, textOf, wireStdio } from '../helpers/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(settings?: string): { home: string; project: string } {
  const home = exampleHomeCopy();
  const project = tempDir('firstlight-seed-guidance-');
  cleanups.push(home.dispose, project.dispose);
  mkdirSync(join(project.dir, '.firstlight'), { recursive: true });
  if (settings) writeFileSync(join(home.dir, 'firstlight.yaml'), settings);
  return { home: home.dir, project: project.dir };
}

/** A client that introduces itself with `name`, as a host does in initialize. */
async function clientNamed(name: string, home: string, cwd: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--home', home],
      cwd,
      env: process.env as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  cleanups.push(() => client.close());
  return client;
}

function promptText(result: { messages: { content: { type: string; text?: string } }[] }): string {
  return result.messages.map((m) => m.content.text ?? '').join('\n');
}

describe('the guidance resources under the names a Symposium client uses', () => {
  it('main.md is Collaboration Patterns: expand_reference and resources/read both resolve it', async () => {
    const { home, project } = setup();
    const wired = await wireStdio(['serve', '--home', home], { cwd: project });
    cleanups.push(wired.close);
    const expanded = structured<{ kind: string; uri: string; text: string }>(
      await wired.client.callTool({ name: 'expand_reference', arguments: { ref: 'main.md' } }),
    );
    expect(expanded.kind).toBe('guidance');
    expect(expanded.uri).toBe('firstlight://guidance/collaboration-patterns');
    expect(expanded.text).toContain('# Collaboration Patterns');
    // `main.md` bare, as the seed's list_resources names it (issue 38), and the full URIs.
    for (const uri of ['main.md', 'firstlight://guidance/main', 'firstlight://guidance/main.md']) {
      const read = await wired.client.readResource({ uri });
      expect((read.contents[0] as { text: string }).text).toBe(expanded.text);
    }
    // The other two keep their seed names as they are.
    for (const ref of ['walkthrough-format.md', 'coding-guidelines.md']) {
      const doc = await wired.client.callTool({ name: 'expand_reference', arguments: { ref } });
      expect(doc.isError).toBeFalsy();
      const read = await wired.client.readResource({ uri: ref });
      expect((read.contents[0] as { text: string }).text).toBe(
        (doc.structuredContent as { text: string }).text,
      );
    }
    // A bare name that is no doc is "not found" (-32002), naming the docs there are.
    await expect(wired.client.readResource({ uri: 'nope.md' })).rejects.toThrow(/-32002.*not found/);
  });
});

describe('yiasou: the guidance inline or by reference', () => {
  it('reference: "Load the resource …" for each doc, with expand_reference for hosts without resources', async () => {
    const { home, project } = setup('guidance:\n  yiasou: reference\n');
    const client = await clientNamed('any-host', home, project);
    const text = promptText(await client.getPrompt({ name: 'yiasou', arguments: {} }));
    for (const name of ['collaboration-patterns', 'walkthrough-format', 'coding-guidelines']) {
      expect(text).toContain(
        `Load the resource \`firstlight://guidance/${name}\` into your working context.`,
      );
      expect(text).toContain(`call the tool \`expand_reference\` with \`{"ref": "${name}"}\``);
    }
    expect(text).toContain('## Load Collaboration Patterns');
    const inline = setup('guidance:\n  yiasou: inline\n');
    const inlineText = promptText(
      await (await clientNamed('any-host', inline.home, inline.project)).getPrompt({
        name: 'yiasou',
        arguments: {},
      }),
    );
    expect(inlineText).toContain('inlined in full');
    // Reference is a fraction of inline: the docs' text is left to the resources.
    expect(text.length * 3).toBeLessThan(inlineText.length);
  });

  it('auto (the default): reference for Claude Code and Codex, inline for the rest', async () => {
    const { home, project } = setup();
    const modes: Record<string, boolean> = {};
    for (const host of ['Claude Code', 'codex-mcp-client', 'gemini-cli-mcp-client', 'some-other-host']) {
      const client = await clientNamed(host, home, project);
      const text = promptText(await client.getPrompt({ name: 'yiasou', arguments: {} }));
      const tool = textOf(await client.callTool({ name: 'expand_reference', arguments: { ref: 'yiasou' } }));
      expect(tool).toBe(text);
      modes[host] = text.includes('Load the resource');
    }
    expect(modes).toEqual({
      'Claude Code': true,
      'codex-mcp-client': true,
      'gemini-cli-mcp-client': false,
      'some-other-host': false,
    });
  });
});

describe('the taskspace state protocol', () => {
  it('update_taskspace with neither name nor description reads; with them it writes and clears the initial prompt', async () => {
    const { home, project } = setup();
    const created = await runCli([
      'taskspace',
      '--project',
      project,
      '--home',
      home,
      '--set-name',
      'Feature X',
      '--set-description',
      'Add new API',
      '--initial-prompt',
      'Implement REST endpoint',
    ]);
    expect(created.status, created.stderr).toBe(0);
    const wired = await wireStdio(['serve', '--home', home], { cwd: project });
    cleanups.push(wired.close);
    type State = {
      taskspace: { id: string; name: string; description: string; initial_prompt: string | null };
    };
    const read = structured<State>(await wired.client.callTool({ name: 'update_taskspace', arguments: {} }));
    expect(read.taskspace).toMatchObject({
      name: 'Feature X',
      description: 'Add new API',
      initial_prompt: 'Implement REST endpoint',
    });
    // A read leaves the initial prompt in place.
    const again = structured<State>(await wired.client.callTool({ name: 'get_taskspace', arguments: {} }));
    expect(again.taskspace.initial_prompt).toBe('Implement REST endpoint');
    const written = structured<State>(
      await wired.client.callTool({
        name: 'update_taskspace',
        arguments: { name: 'Feature X v2', description: 'Updated API design' },
      }),
    );
    expect(written.taskspace).toMatchObject({
      name: 'Feature X v2',
      description: 'Updated API design',
      initial_prompt: null,
    });
    expect(written.taskspace.id).toBe(read.taskspace.id);
    expect(written.taskspace.id).toMatch(/^task-[0-9a-f]{12}$/);
  });

  it('yiasou puts the task under the seed\'s heading, "Initial Task" (issue 38)', async () => {
    const { home, project } = setup();
    const created = await runCli([
      'taskspace',
      '--project',
      project,
      '--home',
      home,
      '--set-name',
      'Feature X',
      '--initial-prompt',
      'Implement REST endpoint',
    ]);
    expect(created.status, created.stderr).toBe(0);
    const client = await clientNamed('any-host', home, project);
    const text = promptText(await client.getPrompt({ name: 'yiasou', arguments: {} }));
    expect(text).toMatch(/\n## Initial Task\n\n<taskspace_context>[\s\S]*Implement REST endpoint/);
  });

  it('several taskspaces per project, each with an id: list, new, switch', async () => {
    const { home, project } = setup();
    const cli = async (...args: string[]) => {
      const result = await runCli([...args, '--home', home, '--project', project, '--json']);
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const first = await cli('taskspace', 'new', 'Invoice retries', '--initial-prompt', 'Add backoff');
    const second = await cli('taskspace', 'new', 'Billing export', '--description', 'CSV export');
    expect(second.setAside).toBe(first.created.id);
    const list = (
      (await cli('taskspace', 'list')) as {
        taskspaces: { id: string; current: boolean; taskspace: { name: string } }[];
      }
    ).taskspaces;
    expect(list.map((e) => [e.id, e.current, e.taskspace.name])).toEqual([
      [second.created.id, true, 'Billing export'],
      [first.created.id, false, 'Invoice retries'],
    ]);
    await cli('taskspace', 'switch', first.created.id);
    // What the agent sees follows the switch.
    const wired = await wireStdio(['serve', '--home', home], { cwd: project });
    cleanups.push(wired.close);
    const current = structured<{ taskspace: { id: string; name: string; initial_prompt: string } }>(
      await wired.client.callTool({ name: 'get_taskspace', arguments: {} }),
    );
    expect(current.taskspace).toMatchObject({
      id: first.created.id,
      name: 'Invoice retries',
      initial_prompt: 'Add backoff',
    });
    const unknown = await runCli([
      'taskspace',
      'switch',
      'task-000000000000',
      '--home',
      home,
      '--project',
      project,
    ]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(first.created.id);
  });
});
