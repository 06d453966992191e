// One of the concurrent hook processes of observe-hooks.test.ts: runs the built hook pipeline
// (runHook, as `firstlight hook post-tool-use` does) for N PostToolUse payloads into one home.
import { runHook } from '../../dist/host/index.js';

const [w, n, home] = process.argv.slice(2);
for (let i = 0; i < Number(n); i++) {
  const stdin = JSON.stringify({
    session_id: `w${w}`,
    transcript_path: '/t.jsonl',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    // Lines of different lengths (up to a few KB), so a torn or interleaved write would show.
    tool_input: { command: `echo ${w}-${i}`, pad: 'x'.repeat((i % 7) * 300) },
    tool_response: { stdout: `${w}-${i}`, stderr: '' },
    tool_use_id: `w${w}-${i}`,
  });
  const out = await runHook({ event: 'post-tool-use', host: 'claude', home, env: {}, cwd: home, stdin });
  if (out.exitCode !== 0 || out.stderr) {
    process.stderr.write(`${out.stderr}\n`);
    process.exit(1);
  }
}
