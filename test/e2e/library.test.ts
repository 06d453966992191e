/**
 * firstlight as a library: a program that spawns agent sessions installs the package and
 * imports `firstlight` (the package's `exports`), not a path into dist/.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleHomeCopy, REPO_ROOT, run, tempDir } from '../helpers/index.js';

const PROGRAM = `
import { bootstrapSession, renderPacketMarkdown, internalize, packetSchema } from 'firstlight';
const home = process.argv[2];
await internalize({ home, streamTail: 'I was checking the lock order in the ledger write.' });
const first = await bootstrapSession({ home, sessionId: 'lib-1' });
const second = await bootstrapSession({ home, sessionId: 'lib-2' });
const text = renderPacketMarkdown(second);
console.log(JSON.stringify({
  valid: packetSchema.safeParse(first).success,
  first,
  lastSession: second.context.last_session,
  markdownChars: text.length,
  markdownStart: text.slice(0, 400),
}));
`;

describe('the package as a library', () => {
  it("import { bootstrapSession } from 'firstlight' gives the packet and records the session", async () => {
    const project = tempDir('firstlight-lib-');
    const home = exampleHomeCopy();
    try {
      mkdirSync(join(project.dir, 'node_modules'));
      symlinkSync(REPO_ROOT, join(project.dir, 'node_modules', 'firstlight'), 'dir');
      writeFileSync(join(project.dir, 'spawn.mjs'), PROGRAM);
      const ran = await run(process.execPath, ['spawn.mjs', home.dir], {
        cwd: project.dir,
        timeoutMs: 30_000,
      });
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
      const out = JSON.parse(ran.stdout);
      expect(out.valid).toBe(true);
      expect(out.first.schema_version).toBe(1);
      expect(out.first.session_id).toBe('lib-1');
      expect(out.first.mind_contract_available).toBe(true);
      expect(out.first.resumption.stream_tail).toBe('I was checking the lock order in the ledger write.');
      expect(out.lastSession.session_id).toBe('lib-1');
      expect(out.markdownChars).toBeLessThanOrEqual(8000);
      expect(out.markdownStart).toContain('I was checking the lock order in the ledger write.');
    } finally {
      project.dispose();
      home.dispose();
    }
  });
});
