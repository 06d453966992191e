import type { Command } from 'commander';
import { collect, HOME_HELP, numberOption, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface CallOptions extends HomeOption {
  arg: string[];
  http?: string;
  server?: string;
  timeout: string | number;
  json?: boolean;
}

export function registerCall(program: Command): void {
  const call = program
    .command('call')
    .description(
      'call one tool of the mind or the REPL over MCP and print the answer (no TOOL: list the tools)',
    )
    .argument('[tool]', 'the tool, e.g. bootstrap_session, recall, execute')
    .option(
      '--arg <key=value>',
      'a tool argument (repeatable); values that look like JSON are parsed',
      collect,
      [],
    )
    .option('--http <url>', 'call a running server over streamable HTTP instead of starting one')
    .option(
      '--server <name>',
      "mind | repl: which server to start (default: repl for the REPL's tools, else mind)",
    )
    .addOption(
      numberOption('--timeout <seconds>', 'give up after this long without an answer or progress', 120),
    )
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print JSON: {ok, tool, result} (result: the structured content, else the text)');
  withExamples(
    call,
    [
      'firstlight call bootstrap_session',
      'firstlight call recall --arg query="deploy freeze" --arg k=3',
      "firstlight call remember --arg content='Alex prefers small PRs' --arg type=user --arg tags='[\"portal\"]'",
      "firstlight call execute --arg code='sum(range(10))'",
      'firstlight call install_capability --arg name=mem --arg command="npx -y @modelcontextprotocol/server-memory"',
      'firstlight call --server repl',
      'firstlight call bootstrap_session --http http://127.0.0.1:7821/mcp',
    ],
    [
      'Over stdio it starts this firstlight (serve, or repl serve) as a host would and stops it after the',
      'call: the REPL keeps its namespace across calls through the project autosave. With --http it',
      'connects to a running server and sends its token: the one it keeps in <home>/run/ (repl serve',
      '--http generates one: pass the same --home), else FIRSTLIGHT_TOKEN. Progress',
      'of a long call (install_capability through npx) shows on a terminal. A tool error exits 1.',
    ],
  ).action(async (tool: string | undefined, options: CallOptions) => {
    const { fileURLToPath } = await import('node:url');
    const { SystemError, UserError } = await import('../../core/index.js');
    const { existingHome, homeFrom, jsonAnswer, positiveInt } = await import('../io.js');
    const { mcpCall, parseArgs, serverFor, toolFailure } = await import('../mcp-call.js');
    if (options.server !== undefined && options.server !== 'mind' && options.server !== 'repl') {
      throw new UserError(`--server must be mind or repl, not "${options.server}"`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass --server mind (firstlight serve) or --server repl (firstlight repl serve)',
      });
    }
    const timeout = positiveInt('--timeout', options.timeout);
    // The server it would start needs a home: say so here, not as the server's last words
    // inside a "could not reach" (issue 38).
    if (!options.http) existingHome(options);
    const answer = await mcpCall({
      ...(tool !== undefined ? { tool } : {}),
      args: parseArgs(options.arg),
      ...(options.http ? { http: options.http } : {}),
      server: (options.server as 'mind' | 'repl' | undefined) ?? serverFor(tool),
      // The entry that starts our servers: dist/cli/main.js, one level up from here (and from the bundle's chunks/).
      cliPath: fileURLToPath(new URL('../main.js', import.meta.url)),
      ...(options.home ? { home: homeFrom(options) } : {}),
      timeoutMs: timeout * 1000,
    });
    if (answer.kind === 'list') {
      const tools = answer.tools.map((t) => ({
        name: t.name,
        description: t.description ?? '',
        input_schema: t.inputSchema,
      }));
      const out = options.json
        ? JSON.stringify(jsonAnswer({ server: answer.server, tools }), null, 2)
        : [
            `${answer.server}: ${tools.length} tools`,
            ...tools.map((t) => `  ${t.name.padEnd(22)} ${firstSentence(t.description)}`),
          ].join('\n');
      process.stdout.write(`${out}\n`);
      return;
    }
    const text = answer.texts.join('\n');
    if (answer.isError) {
      const failure = toolFailure(answer.tool, text);
      throw new SystemError(failure.message, {
        code: failure.code,
        ...(failure.fix ? { hint: failure.fix } : {}),
      });
    }
    if (options.json) {
      const result = answer.structured ?? parseJson(text);
      process.stdout.write(`${JSON.stringify(jsonAnswer({ tool: answer.tool, result }), null, 2)}\n`);
      return;
    }
    // A JSON answer (most of our tools') is indented for reading; --json is for programs.
    const parsed = parseJson(text);
    const shown = parsed !== null && typeof parsed === 'object' ? JSON.stringify(parsed, null, 2) : text;
    process.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
  });
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  const first = end > 0 ? flat.slice(0, end + 1) : flat;
  return first.length > 90 ? `${first.slice(0, 89)}…` : first;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
