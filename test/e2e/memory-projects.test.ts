/**
 * Per-project memory, end to end: two git projects on one home, each with its own mind server
 * started in it (as a host starts one), remembering through a real MCP client; recall, the
 * packet, list_memory_files and the CLI each see their own project's memories and the global
 * ones, and every project's with all_projects / --all-projects.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, runCli, structured, tempDir, tempHome, wireStdio } from '../helpers/index.js';

interface RecallOut {
  results: { name: string; project: string | null; file: string }[];
}

async function gitProject(dir: string, message: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const git = async (...args: string[]) => {
    const r = await run('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.test',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.test',
      },
    });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  await git('init', '-q');
  writeFileSync(join(dir, 'README.md'), `${message}\n`);
  await git('add', 'README.md');
  await git('commit', '-q', '-m', message);
}

describe('per-project memory on one home', () => {
  const home = tempHome();
  const work = tempDir('firstlight-projects-');
  const alpha = join(work.dir, 'alpha');
  const beta = join(work.dir, 'beta');
  const outside = join(work.dir, 'scratch');

  beforeAll(async () => {
    await gitProject(alpha, 'alpha: the billing service');
    await gitProject(beta, 'beta: the mobile app');
    mkdirSync(outside);
  });
  afterAll(() => {
    home.dispose();
    work.dispose();
  });

  const remember = async (cwd: string, args: Record<string, unknown>) => {
    await using wired = await wireStdio(['serve', '--home', home.dir], { cwd });
    return structured<{ file: string; project: { id: string; name: string } | null }>(
      await wired.client.callTool({ name: 'remember', arguments: args }),
    );
  };

  it('stores the project with the memory, and recall in each project finds its own and the global ones', async () => {
    const a = await remember(alpha, {
      type: 'project',
      content: 'Deploys of the billing service go out with blue-green switching on Fridays.',
    });
    const b = await remember(beta, {
      type: 'project',
      content: 'Deploys of the mobile app go out through the store review on Mondays.',
    });
    const g = await remember(alpha, {
      type: 'feedback',
      scope: 'global',
      content: 'Deploys are announced in the team channel an hour before they start.',
    });
    expect(a.project?.name).toBe('alpha');
    expect(a.project?.id).toMatch(/^git-[0-9a-f]{12}$/);
    expect(b.project?.name).toBe('beta');
    expect(b.project?.id).not.toBe(a.project?.id);
    expect(g.project).toBeNull();
    const text = readFileSync(join(home.dir, 'memory', a.file), 'utf8');
    expect(text).toContain(`project_id: "${a.project?.id}"`);
    expect(text).toContain('project_name: "alpha"');

    // Recall through the real MCP client, the server started in each project.
    const recallIn = async (cwd: string, all = false) => {
      await using wired = await wireStdio(['serve', '--home', home.dir], { cwd });
      const out = structured<RecallOut>(
        await wired.client.callTool({
          name: 'recall',
          arguments: { query: 'deploys', k: 10, all_projects: all },
        }),
      );
      return out.results.map((r) => r.file).sort();
    };
    expect(await recallIn(alpha)).toEqual([a.file, g.file].sort());
    expect(await recallIn(join(beta))).toEqual([b.file, g.file].sort());
    expect(await recallIn(outside)).toEqual([g.file]);
    expect(await recallIn(outside, true)).toEqual([a.file, b.file, g.file].sort());

    // The same through the CLI, from a subdirectory of a project.
    mkdirSync(join(alpha, 'src', 'deep'), { recursive: true });
    const cli = async (cwd: string, ...extra: string[]) =>
      (
        JSON.parse(
          (await runCli(['recall', 'deploys', '--k', '10', '--home', home.dir, '--json', ...extra], { cwd }))
            .stdout,
        ) as RecallOut
      ).results
        .map((r) => r.file)
        .sort();
    expect(await cli(join(alpha, 'src', 'deep'))).toEqual([a.file, g.file].sort());
    expect(await cli(beta)).toEqual([b.file, g.file].sort());
    expect(await cli(beta, '--all-projects')).toEqual([a.file, b.file, g.file].sort());
  });

  it('counts only the project and global memories in the packet, and says how many it left out', async () => {
    await using wired = await wireStdio(['serve', '--home', home.dir], { cwd: beta });
    const packet = structured<{ memory_catalog: Record<string, unknown> }>(
      await wired.client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(packet.memory_catalog).toMatchObject({
      project: { name: 'beta', count: 1 },
      other_projects_count: 1,
      category_counts: { project: 1, feedback: 1, index: 1 },
    });
    const listed = structured<{ files: { file: string }[]; other_projects: number }>(
      await wired.client.callTool({ name: 'list_memory_files', arguments: {} }),
    );
    expect(listed.files.map((f) => f.file)).not.toContain(expect.stringMatching(/billing/));
    expect(listed.other_projects).toBe(1);

    // The SessionStart hook (a one-shot process, its overview from the cache) says the same.
    const hook = async (cwd: string, session: string) =>
      await runCli(['hook', 'session-start', '--home', home.dir], {
        cwd,
        input: JSON.stringify({
          session_id: session,
          cwd,
          hook_event_name: 'SessionStart',
          source: 'startup',
        }),
      });
    for (const [cwd, name] of [
      [beta, 'beta'],
      [alpha, 'alpha'],
      [beta, 'beta'],
    ] as const) {
      const out = await hook(cwd, `s-${name}-${Math.random()}`);
      expect(out.status).toBe(0);
      const context = (JSON.parse(out.stdout) as { hookSpecificOutput: { additionalContext: string } })
        .hookSpecificOutput.additionalContext;
      expect(context).toContain(`memories of project ${name} (1) and global`);
      expect(context).toContain('1 more belong to other projects');
    }
  });

  it('keeps its id when the project moves, and lists per project in the CLI', async () => {
    const moved = join(work.dir, 'alpha-moved');
    renameSync(alpha, moved);
    const list = async (cwd: string, ...flags: string[]) =>
      JSON.parse(
        (await runCli(['memory', 'list', '--home', home.dir, '--json', ...flags], { cwd })).stdout,
      ) as {
        memories: { name: string; project: string | null }[];
        project: { name: string } | null;
        other_projects: number;
      };
    const own = await list(moved, '--project');
    expect(own.memories.map((m) => m.name)).toEqual(['Deploys of the billing service']);
    expect(own.project?.name).toBe('alpha-moved');
    const seen = await list(moved);
    expect(seen.memories).toHaveLength(2);
    expect(seen.other_projects).toBe(1);
    expect((await list(moved, '--global')).memories.map((m) => m.project)).toEqual([null]);
    expect((await list(moved, '--all-projects')).memories).toHaveLength(3);
    const human = (await runCli(['memory', 'list', '--home', home.dir], { cwd: moved })).stdout;
    expect(human).toMatch(/^2 memories of project alpha-moved and global$/m);
    expect(human).toMatch(/^1 more in other projects \(--all-projects to list them\)$/m);
  });

  it('leaves memories without a project global, as every memory written before projects was', async () => {
    writeFileSync(
      join(home.dir, 'memory', 'note_old.md'),
      '---\nname: Old deploy note\ntype: note\ndescription: deploys used to be manual\n---\nDeploys used to be manual.\n',
    );
    const found = JSON.parse(
      (await runCli(['recall', 'deploys', '--k', '10', '--home', home.dir, '--json'], { cwd: beta })).stdout,
    ) as RecallOut;
    expect(found.results.map((r) => r.file)).toContain('note_old.md');
  });
});
