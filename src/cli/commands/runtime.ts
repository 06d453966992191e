import type { Command } from 'commander';
import {
  collect,
  HOME_HELP,
  JSON_HELP,
  numberOption,
  PROJECT_OR_HOME_HELP,
  withExamples,
} from '../help-text.js';
import type { HomeOption } from '../io.js';

interface DemoOptions {
  keep?: boolean;
  json?: boolean;
}

interface ServeOptions extends HomeOption {
  host?: string;
  port?: string;
  allowedHost: string[];
  project?: string;
  concurrency?: string;
  subscriptionIdle?: string;
}

/** `firstlight runtime …`: the persona runtime's own commands (`invoke` and `journal` stand alone). */
export function registerRuntime(program: Command): void {
  const runtime = program
    .command('runtime')
    .description(
      'the persona runtime as a service (serve: HTTP API and MCP; mcp: MCP on stdio) and a demo of its whole workflow (run a persona with `firstlight invoke`)',
    );
  withExamples(runtime, [
    'firstlight runtime demo',
    'firstlight runtime serve --port 7822',
    'firstlight runtime mcp',
  ]);
  registerServe(runtime);
  registerMcp(runtime);
  runtime
    .command('demo')
    .description(
      'run explorer → planner → builder → validator → resolver → re-validation on the scripted substrate in a temporary project, and print the journal as a story',
    )
    .option('--keep', 'keep the temporary project (its .firstlight/ holds the journal and handoffs)')
    .option('--json', `${JSON_HELP}: every result and the journal`)
    .addHelpText(
      'after',
      [
        '',
        'No model and no home needed: the bundled personas (examples/home/personas) play the bundled',
        'scripted sessions (examples/sessions). Exit 0 when every step completed with its handoff.',
        'Example:',
        '  firstlight runtime demo --keep',
      ].join('\n'),
    )
    .action(async (options: DemoOptions) => {
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const { journalStory, runDemo, DEMO_STEPS } = await import('../../runtime/index.js');
      const { print } = await import('../io.js');
      const dir = mkdtempSync(join(tmpdir(), 'firstlight-demo-'));
      try {
        const run = await runDemo(dir);
        print(
          options.json,
          { project: run.project, ok: run.ok, results: run.results, journal: run.journal },
          () => {
            const lines = [
              `firstlight runtime demo: ${DEMO_STEPS.length} sessions, each fresh, on the scripted substrate`,
              `project: ${run.project}${options.keep ? '' : ' (removed at the end; --keep keeps it)'}`,
              '',
            ];
            run.results.forEach((r, i) => {
              const m = r.meta;
              const end = m.handoff_id ? `→ ${m.handoff_id}` : (m.refusal_reason ?? m.failure_reason ?? '');
              lines.push(
                `  ${i + 1}. ${m.persona} as ${m.role} (${m.mode ?? 'no mode'})  ${r.status}  ${end}`,
              );
            });
            lines.push(
              '',
              'The journal, as a story:',
              ...journalStory(run.journal).map((line) => `  ${line}`),
            );
            return lines.join('\n');
          },
        );
        if (!run.ok) process.exitCode = 1;
      } finally {
        if (!options.keep) rmSync(dir, { recursive: true, force: true });
      }
    });
}

function registerServe(runtime: Command): void {
  runtime
    .command('serve')
    .description(
      'serve the runtime over HTTP: the API under /v1 (invocations, subscriptions, personas, journal, handoffs, OpenAPI) and MCP at /mcp',
    )
    .option(
      '--host <address>',
      'bind address; anything but loopback requires FIRSTLIGHT_TOKEN (default 127.0.0.1)',
    )
    .option('--port <port>', 'port (0: any free port; default 7822)')
    .option(
      '--allowed-host <name>',
      'also accept this Host header name (a DNS name, or name:port behind a proxy); repeatable',
      collect,
      [],
    )
    .option('--project <dir>', PROJECT_OR_HOME_HELP)
    .option('--concurrency <n>', 'one_shot invocations running at once; more wait their turn (default 8)')
    .option(
      '--subscription-idle <seconds>',
      'tear a subscription down after this long without an event (default 600)',
    )
    .option('--home <dir>', HOME_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Defaults come from runtime.service in firstlight.yaml; flags win. Set FIRSTLIGHT_TOKEN (16+ characters)',
        'to require "Authorization: Bearer <token>" (mandatory off loopback). The Host header must name this',
        'server; a foreign Origin is refused. Ctrl-C tears open subscriptions down (journaled) and stops.',
        'More: firstlight help runtime-service.',
        '',
        'Examples:',
        '  firstlight runtime serve --port 7822 &',
        '  curl -s localhost:7822/v1/invocations -H content-type:application/json -d \'{"persona":"explorer",',
        '    "surface":"synthesis-ledger","engagement":"agent","task":"Map the options","substrate":"scripted:explorer"}\'',
      ].join('\n'),
    )
    .action(async (options: ServeOptions) => {
      const { createLogger, loadSettings, UserError } = await import('../../core/index.js');
      const { join } = await import('node:path');
      const { checkBind } = await import('../../servers/index.js');
      const { startRuntimeService } = await import('../../servers/runtime-service/index.js');
      const { createRuntime } = await import('../../runtime/index.js');
      const { projectFor } = await import('./invoke-project.js');
      const { existingHome } = await import('../io.js');
      const home = existingHome(options);
      const service = loadSettings(join(home, 'firstlight.yaml')).settings.runtime.service;
      const number = (
        flag: string,
        value: string | undefined,
        fallback: number,
        min: number,
        max: number,
      ) => {
        if (value === undefined) return fallback;
        const n = Number(value);
        if (!Number.isFinite(n) || n < min || n > max) {
          throw new UserError(`${flag} must be a number ${min}-${max}, not "${value}"`, {
            code: 'INVALID_ARGUMENT',
            hint: `pass ${flag} with a number from ${min} to ${max}`,
          });
        }
        return n;
      };
      const host = options.host ?? service.host;
      const port = Math.floor(number('--port', options.port, service.port, 0, 65535));
      const token = process.env.FIRSTLIGHT_TOKEN || undefined;
      checkBind(host, token);
      const project = await projectFor(options.project ?? service.project, home);
      const log = createLogger('runtime-serve');
      const runtime = createRuntime({
        home,
        ...(project ? { project } : {}),
        ...(project ? { cwd: project } : {}),
        log,
      });
      const running = await startRuntimeService({
        runtime,
        host,
        port,
        token,
        allowedHosts: options.allowedHost,
        log,
        concurrency: Math.floor(number('--concurrency', options.concurrency, service.concurrency, 1, 1000)),
        subscriptionIdleMs:
          number('--subscription-idle', options.subscriptionIdle, service.subscription_idle_s, 1, 604_800) *
          1000,
      });
      process.stdout.write(
        [
          `firstlight runtime serving ${home}`,
          `  ledger: ${runtime.ledger.location}`,
          `  HTTP API: ${running.url}/v1 (reference: ${running.url}/v1/openapi.json)`,
          `  MCP endpoint: ${running.url}/mcp`,
          ...(token ? ['  Clients send: Authorization: Bearer <the FIRSTLIGHT_TOKEN value>'] : []),
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        await running.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop());
      process.on('SIGTERM', () => void stop());
    });
}

function registerMcp(runtime: Command): void {
  runtime
    .command('mcp')
    .description(
      "serve the runtime's MCP door on stdio: invoke_persona, list_personas, read_journal, read_handoff",
    )
    .option('--project <dir>', PROJECT_OR_HOME_HELP)
    .addOption(numberOption('--concurrency <n>', 'invocations running at once', 8))
    .option('--home <dir>', HOME_HELP)
    .addHelpText(
      'after',
      [
        '',
        'For a host that starts MCP servers: an agent in it hands work to a fresh persona session (a validator gets',
        'only what the policy allows). Logs go to stderr.',
        '',
        'Examples:',
        '  firstlight runtime mcp --project .',
        '  .mcp.json: {"mcpServers": {"firstlight-runtime": {"command": "firstlight", "args": ["runtime", "mcp"]}}}',
      ].join('\n'),
    )
    .action(async (options: HomeOption & { project?: string; concurrency: string | number }) => {
      const { createLogger } = await import('../../core/index.js');
      const { serveStdio } = await import('../../servers/index.js');
      const { createRuntimeMcpServer, Invocations, Subscriptions } = await import(
        '../../servers/runtime-service/index.js'
      );
      const { createRuntime } = await import('../../runtime/index.js');
      const { projectFor } = await import('./invoke-project.js');
      const { existingHome } = await import('../io.js');
      const home = existingHome(options);
      const project = await projectFor(options.project, home);
      const log = createLogger('runtime-mcp');
      const runtime = createRuntime({ home, ...(project ? { project } : {}), log });
      const concurrency = Math.max(1, Math.floor(Number(options.concurrency) || 8));
      const invocations = new Invocations({ runtime, log, concurrency });
      const subscriptions = new Subscriptions({ runtime, log, idleMs: 600_000 });
      await serveStdio(createRuntimeMcpServer({ runtime, invocations, subscriptions, log }), {
        log,
        onShutdown: () => invocations.drain(),
      });
    });
}
