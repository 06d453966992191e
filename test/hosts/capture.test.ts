/**
 * Issue 36, with the real hosts: in session one the user says never to use yarn; the session
 * ends (the host's Stop / AfterAgent hook queues it and starts the capture worker; `firstlight
 * capture` waits for the worker); capture runs with no model configured. The next real
 * session's first model request carries the instruction (the SessionStart "Relevant memories"),
 * and the `yarn install` the model then tries meets the caution. Claude Code, Codex CLI and
 * Gemini CLI, each against the scripted model. `FIRSTLIGHT_HOSTS=claude` runs one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureHost } from './cache.js';
import {
  type RecordedRequest,
  requestText,
  startModelServer,
  type Turn,
  toolResults,
} from './model-server.js';
import { type HostRecipe, RECIPES, SESSION_HOSTS } from './recipes.js';
import { createSandbox, firstlight, runHost } from './sandbox.js';

const SESSION_TIMEOUT_MS = Number(process.env.FIRSTLIGHT_HOSTS_TIMEOUT_MS ?? 120_000);
const ONLY = (process.env.FIRSTLIGHT_HOSTS ?? '').split(',').filter(Boolean);
const INSTRUCTION = 'Never use yarn in this repo, always pnpm.';
const YARN = 'yarn install --offline';

/** Session one: the user states the rule; the model only answers (no tool call is needed). */
const sessionOne = (): Turn => ({ text: 'Understood; I will stick to the other package manager.' });

/** Session two: bootstrap, then the shell call the caution is about, then a last line. */
function sessionTwo(recipe: HostRecipe): (request: RecordedRequest) => Turn {
  return (request) => {
    const results = toolResults(request);
    const shell = results.filter((r) => r.name !== null && recipe.shellTools.includes(r.name));
    const boot = results.filter((r) => r.name === recipe.bootstrapName);
    const notYet = boot.length > 0 && boot.length < 3 && /unsupported call/i.test(boot.at(-1)!.text);
    if (boot.length === 0 || notYet) return { toolCalls: [recipe.bootstrapCall(request)] };
    if (shell.length === 0) {
      const tool = recipe.shellTools[0]!;
      return { toolCalls: [{ name: tool, input: recipe.shellInput(tool, YARN) }] };
    }
    return { text: 'Dependencies attempted.' };
  };
}

// Copilot CLI captures the rule (its events.jsonl gives the user's words), but its next session's
// first request does not yet show it: not proven here, and docs/capture.md says so.
const NOT_YET = new Set(['copilot']);
const hosts = SESSION_HOSTS.filter((id) => !NOT_YET.has(id) && (ONLY.length === 0 || ONLY.includes(id)));
if (SESSION_HOSTS.some((id) => NOT_YET.has(id)))
  console.log(
    `capture with the real hosts: skipped ${[...NOT_YET].join(', ')} (the next session's request is not yet proven to carry the rule)`,
  );

describe('capture with the real hosts (issue 36)', () => {
  for (const id of hosts) {
    const recipe = RECIPES[id];
    it(
      `${recipe.name}: the rule said in one session is in the next one's first request and cautions its yarn call`,
      async (ctx) => {
        const ensured = await ensureHost(id);
        if (!ensured.ok) {
          ctx.skip();
          return;
        }
        const sandbox = await createSandbox(`capture-${id}`);
        let phase: 1 | 2 = 1;
        const two = sessionTwo(recipe);
        await using model = await startModelServer({
          fallback: (request) => (phase === 1 ? sessionOne() : two(request)),
        });
        try {
          const install = await firstlight(sandbox, [
            'install',
            id,
            '--project',
            sandbox.project,
            '--home',
            sandbox.firstlightHome,
          ]);
          expect(install.status, install.stderr).toBe(0);
          const env = { ...sandbox.env, ...recipe.configure(sandbox, model.url) };
          const session = { cwd: sandbox.project, env, timeoutMs: SESSION_TIMEOUT_MS };
          const first = await runHost(
            ensured.bin,
            recipe.sessionArgs(`Add a lint script to package.json later. ${INSTRUCTION}`),
            session,
          );
          expect(first.timedOut, first.stderr).toBe(false);
          const oneTurns = model.turns.length;
          // The Stop hook queued the session and started the worker; this waits for it.
          const captured = await firstlight(sandbox, ['capture', '--home', sandbox.firstlightHome, '--json']);
          expect(captured.status, captured.stderr).toBe(0);
          const log = readFileSync(join(sandbox.firstlightHome, 'capture', 'log.jsonl'), 'utf8');
          const reports = log
            .trim()
            .split('\n')
            .map(
              (l) =>
                JSON.parse(l) as { host: string; wrote: { name: string; type: string }[]; tokens: unknown },
            );
          const feedback = reports.flatMap((r) => r.wrote).find((w) => w.type === 'feedback');
          expect(feedback, log).toBeDefined();
          expect(reports.every((r) => r.tokens === null)).toBe(true); // no model configured
          expect(reports.some((r) => r.host === id)).toBe(true);

          phase = 2;
          const second = await runHost(ensured.bin, recipe.sessionArgs('Set up the dependencies.'), {
            ...session,
            env: { ...env, FIRSTLIGHT_CAPTURE_WORKER: 'off' },
          });
          expect(second.timedOut, second.stderr).toBe(false);
          const turns = model.turns.slice(oneTurns);
          const firstText = requestText(turns[0]!);
          expect(firstText).toContain('Relevant memories');
          expect(firstText).toContain(feedback!.name);
          const carrying = turns.find((r) =>
            toolResults(r).some((x) => x.name !== null && recipe.shellTools.includes(x.name)),
          );
          expect(carrying, `no request carries the ${YARN} result`).toBeDefined();
          // The caution reaches the model with the call (before it, or with its result).
          const afterCall = requestText(carrying!);
          const cautionAt = afterCall.lastIndexOf('firstlight caution');
          expect(cautionAt, afterCall.slice(-2000)).toBeGreaterThan(-1);
          expect(afterCall.slice(cautionAt)).toContain('Never use yarn');
        } finally {
          if (process.env.FIRSTLIGHT_HOSTS_KEEP !== '1') sandbox.dispose();
          else console.log(`[capture] kept ${sandbox.root}`);
        }
      },
      3 * SESSION_TIMEOUT_MS + 60_000,
    );
  }
});
