/**
 * The gate holds the REPL on the real hosts: a session whose scripted model calls the REPL's
 * `execute` (Python that writes a file) before bootstrap_session is denied and the file never
 * appears; the same call after bootstrap_session runs. Run with `npm run test:hosts`
 * (`FIRSTLIGHT_HOSTS_FIXTURES=1` also refreshes the captured PreToolUse payloads).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PINNED_HOSTS } from './cache.js';
import { RECIPES, SESSION_HOSTS } from './recipes.js';
import { type ReplGateRun, runReplGate } from './repl-gate.js';

const TIMEOUT_MS = Number(process.env.FIRSTLIGHT_HOSTS_TIMEOUT_MS ?? 120_000);

for (const id of SESSION_HOSTS) {
  const recipe = RECIPES[id];
  describe(`${recipe.name} ${PINNED_HOSTS[id].version}: the REPL's execute is gated`, () => {
    let run: ReplGateRun | undefined;
    beforeAll(
      async () => {
        run = await runReplGate(recipe, {
          timeoutMs: TIMEOUT_MS,
          keepSandbox: process.env.FIRSTLIGHT_HOSTS_KEEP === '1',
          writeFixtures: process.env.FIRSTLIGHT_HOSTS_FIXTURES === '1',
        });
      },
      TIMEOUT_MS + 5 * 60_000,
    );
    const ready = (ctx: { skip: () => void }): ReplGateRun => {
      if (run?.skipped) ctx.skip();
      expect(run?.failed ?? null).toBeNull();
      expect(run?.offered, `the host never offered the REPL's execute: ${run?.output}`).toBeTruthy();
      return run!;
    };

    it('before bootstrap_session: denied, naming the rule and the call to make; the code did not run', (ctx) => {
      const r = ready(ctx);
      const first = r.replResults[0];
      expect(first, `no REPL result reached the model: ${r.output}`).toBeDefined();
      expect(first!.text).toContain(recipe.bootstrapName);
      expect(first!.text).toMatch(/firstlight gate: .*execute is gated \(default rule /);
      expect(r.beforeFileExists, 'the denied code wrote its file').toBe(false);
    });

    it('after bootstrap_session: allowed, and the code ran', (ctx) => {
      const r = ready(ctx);
      expect(
        r.afterFileExists,
        `the allowed code wrote no file: ${JSON.stringify(r.replResults.at(-1))}`,
      ).toBe(true);
    });

    it("the host's PreToolUse payload for the REPL call reached firstlight's hook", (ctx) => {
      const r = ready(ctx);
      expect(r.payloads.length).toBeGreaterThanOrEqual(2);
      expect(r.answers[0]!.stdout + String(r.answers[0]!.status)).toMatch(/deny|2$/);
    });
  });
}
