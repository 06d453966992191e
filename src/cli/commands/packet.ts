import type { Command } from 'commander';
import { HOME_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

export function registerPacket(program: Command): void {
  const packet = program
    .command('packet')
    .description('print the bootstrap packet (what bootstrap_session returns) without starting a server')
    .option('--home <dir>', HOME_HELP)
    .option('--session-id <id>', 'session id to key the packet')
    .option('--format <format>', 'json | markdown (markdown is what the SessionStart hook injects)', 'json')
    .option('--json', 'same as --format json');
  withExamples(
    packet,
    ['firstlight packet --format markdown', 'firstlight packet --json | jq .memory_catalog'],
    [
      'A preview: it records no session start. The JSON is the packet (firstlight help packet) with "ok": true',
      'after its keys, so "resumption" stays first.',
    ],
  ).action(async (options: HomeOption & { sessionId?: string; format: string; json?: boolean }) => {
    const { UserError } = await import('../../core/index.js');
    if (options.json && options.format !== 'json') {
      throw new UserError(`--json and --format ${options.format} contradict each other`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass one of them: --json (or --format json) for JSON, --format markdown for markdown',
      });
    }
    if (options.format !== 'json' && options.format !== 'markdown') {
      throw new UserError(`--format must be json or markdown, not "${options.format}"`, {
        code: 'INVALID_ARGUMENT',
        hint: 'use --format json or --format markdown',
      });
    }
    const { createMind, renderPacketMarkdown } = await import('../../mind/index.js');
    const { existingHome } = await import('../io.js');
    const home = existingHome(options);
    const mind = createMind({ home, projectDir: process.cwd() });
    const packet = await mind.bootstrap({ sessionId: options.sessionId ?? null, preview: true });
    const max = mind.settings().settings.packet.markdown_max_chars;
    process.stdout.write(
      options.format === 'json'
        ? `${JSON.stringify({ ...packet, ok: true }, null, 2)}\n`
        : `${renderPacketMarkdown(packet, { maxChars: max })}\n`,
    );
    mind.close();
  });
}
