import type { Command } from 'commander';
import { HOOK_EVENTS, HOST_IDS } from '../../host/index.js';

/**
 * Registered for help and argument errors only: `main.ts` runs well-formed `hook` calls on a fast
 * path before commander loads. The action covers what the fast path declines.
 */
export function registerHook(program: Command): void {
  program
    .command('hook')
    .description('run a host hook: JSON payload on stdin, the host-shaped answer on stdout')
    .argument('<event>', `one of ${HOOK_EVENTS.join(', ')}`)
    .option('--host <host>', `host whose formats to use: ${HOST_IDS.join(', ')} (the payload's shape wins)`)
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .addHelpText(
      'after',
      [
        '',
        'Events:',
        '  session-start  inject the rendered packet (<= 8,000 chars, resumption first), once per session+source',
        '  pre-tool-use   gate high-blast-radius tools until bootstrap_session succeeded (fail closed),',
        "                 then the applies_to memories' cautions (warn: context; ask; deny: refused with the memory's text)",
        '  post-tool-use, post-tool-failure  record the call in the event store (source: hook), paired with',
        '                 observe(expected=...); a prediction error above 0.7 comes back as context',
        '  stop, pre-compact  capture resumption state from the transcript',
        '',
        'Gated tools: gate.tools in firstlight.yaml (gate.add: more beside the default list), overridden by FIRSTLIGHT_GATED_TOOLS (comma-separated globs).',
        'Bypass (environment only): FIRSTLIGHT_GATE_BYPASS=1.',
      ].join('\n'),
    )
    .action(async (event: string, options: { host?: string; home?: string }) => {
      const { runHookFast } = await import('../hook-entry.js');
      const args = [
        event,
        ...(options.host ? ['--host', options.host] : []),
        ...(options.home ? ['--home', options.home] : []),
      ];
      process.exitCode = (await runHookFast(args)) ?? 2;
    });
}
