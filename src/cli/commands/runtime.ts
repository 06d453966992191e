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
import { registerLedgerTransfer } from './runtime-ledger.js';

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
  store?: string;
  lease?: string;
  /** false with --no-token. */
  token: boolean;
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
  registerLedgerTransfer(runtime);
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
    .option('--host <address>', 'bind address (default 127.0.0.1)')
    .option('--port <port>', 'port (0: any free port; default 7822)')
    .option(
      '--no-token',
      'on loopback: serve without a token (any local process may then start sessions); refused elsewhere',
    )
    .option(
      '--allowed-host <name>',
      'also accept this Host header name (a DNS name, or name:port behind a proxy); repeatable',
      collect,
      [],
    )
    .option('--project <dir>', PROJECT_OR_HOME_HELP)
    .option(
      '--concurrency <n>',
      'one_shot invocations running at once (on this replica); more wait their turn (default 8)',
    )
    .option(
      '--store <store>',
      'embedded (files under the project, the default) or postgres://USER:PASSWORD@HOST:5432/DB, a ledger and queue several replicas share',
    )
    .option(
      '--lease <seconds>',
      'Postgres store: a replica silent this long loses its running invocations to another (default 30)',
    )
    .option(
      '--subscription-idle <seconds>',
      'tear a subscription down after this long without an event (default 600)',
    )
    .option('--home <dir>', HOME_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Defaults come from runtime.service in firstlight.yaml; flags win. Every request sends',
        '"Authorization: Bearer <token>", on loopback too: FIRSTLIGHT_TOKEN (16+ characters) when set, else a',
        'token generated at start, printed and kept in <home>/run/ (firstlight ui, the client library and',
        'firstlight call find it there); --no-token opts out on loopback only. A request may not carry an',
        'override unless runtime.service.allow_override is true, names only the servers runtime.service.servers',
        'declares, and passes handoffs by id. The Host header must name this server; a foreign Origin is',
        'refused. Ctrl-C tears open subscriptions down (journaled) and stops.',
        'With --store postgres://… any number of replicas share one ledger and queue (firstlight help scale).',
        'More: firstlight help runtime-service.',
        '',
        'Examples:',
        '  firstlight runtime serve --port 7822 &',
        '  firstlight runtime serve --store postgres://firstlight@db:5432/firstlight --host 0.0.0.0',
        '  curl -s localhost:7822/v1/invocations -H content-type:application/json -d \'{"persona":"explorer",',
        '    "surface":"synthesis-ledger","engagement":"agent","task":"Map the options","substrate":"scripted:explorer"}\'',
      ].join('\n'),
    )
    .action(async (options: ServeOptions) => {
      const { createLogger, UserError } = await import('../../core/index.js');
      const { checkBind, codeServerToken, keepServerToken } = await import('../../servers/index.js');
      const { doorPolicyOf, startRuntimeService } = await import('../../servers/runtime-service/index.js');
      const { createRuntime } = await import('../../runtime/index.js');
      const { projectFor } = await import('./invoke-project.js');
      const { existingHome } = await import('../io.js');
      const home = existingHome(options);
      const service = await serviceSettings(home);
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
      // It starts sessions (and their servers) for whoever reaches it: a token on loopback too.
      const minted = codeServerToken({
        host,
        noToken: options.token === false,
        envToken: process.env.FIRSTLIGHT_TOKEN || undefined,
      });
      const token = minted.token;
      checkBind(host, token);
      const project = await projectFor(options.project ?? service.project, home);
      const log = createLogger('runtime-serve');
      const { openLedger } = await import('../../runtime/index.js');
      const { storeFor } = await import('./runtime-ledger.js');
      const store = await storeFor(options.store, home);
      const ledger = await openLedger(store, { home, project });
      const runtime = createRuntime({
        home,
        ...(project ? { project } : {}),
        ...(project ? { cwd: project } : {}),
        log,
        ledger,
      });
      const leaseS = number('--lease', options.lease, service.lease_s, 1, 3600);
      const concurrency = Math.floor(
        number('--concurrency', options.concurrency, service.concurrency, 1, 1000),
      );
      const { createPgShared } = await import('../../servers/runtime-service/index.js');
      const shared =
        store.kind === 'postgres'
          ? await createPgShared({
              ledger: ledger as import('../../runtime/index.js').PgLedger,
              url: store.url,
              concurrency,
              leaseS,
              log,
            })
          : undefined;
      const running = await startRuntimeService({
        runtime,
        ...shared,
        host,
        port,
        token,
        allowedHosts: options.allowedHost,
        log,
        policy: doorPolicyOf(service),
        concurrency,
        subscriptionIdleMs:
          number('--subscription-idle', options.subscriptionIdle, service.subscription_idle_s, 1, 604_800) *
          1000,
      });
      const kept = token
        ? keepServerToken(home, { kind: 'runtime', url: running.url, bind: host, port: running.port, token })
        : undefined;
      process.stdout.write(
        [
          `firstlight runtime serving ${home}`,
          `  ledger: ${runtime.ledger.location}`,
          `  HTTP API: ${running.url}/v1 (reference: ${running.url}/v1/openapi.json)`,
          `  MCP endpoint: ${running.url}/mcp`,
          ...(!token
            ? ['  No token (--no-token): any process on this machine may start sessions.']
            : minted.generated
              ? [
                  `  Token: ${token}`,
                  `  Clients send: Authorization: Bearer <the token> (kept in ${kept!.file} for firstlight ui, call and the client library)`,
                ]
              : ['  Clients send: Authorization: Bearer <the FIRSTLIGHT_TOKEN value>']),
          `  Overrides: ${service.allow_override ? 'accepted (runtime.service.allow_override)' : 'refused (the CLI takes them)'}; servers a request may name: ${Object.keys(service.servers).join(', ') || 'none'}`,
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        kept?.remove();
        await running.close();
        await ledger.close();
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
    .option(
      '--store <store>',
      'embedded (files under the project, the default) or the postgres:// URL of a shared ledger (default: runtime.store)',
    )
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
    .action(
      async (options: HomeOption & { project?: string; concurrency: string | number; store?: string }) => {
        const { createLogger } = await import('../../core/index.js');
        const { serveStdio } = await import('../../servers/index.js');
        const { createRuntimeMcpServer, doorPolicyOf, Invocations, Subscriptions } = await import(
          '../../servers/runtime-service/index.js'
        );
        const { createRuntime } = await import('../../runtime/index.js');
        const { projectFor } = await import('./invoke-project.js');
        const { existingHome } = await import('../io.js');
        const home = existingHome(options);
        const service = await serviceSettings(home);
        const project = await projectFor(options.project, home);
        const log = createLogger('runtime-mcp');
        const { openLedger } = await import('../../runtime/index.js');
        const { storeFor } = await import('./runtime-ledger.js');
        // On a shared store the stdio door reads and writes the same ledger as the replicas; its
        // invocations run here, in this process.
        const ledger = await openLedger(await storeFor(options.store, home), { home, project });
        const runtime = createRuntime({ home, ...(project ? { project } : {}), log, ledger });
        const concurrency = Math.max(1, Math.floor(Number(options.concurrency) || 8));
        const invocations = new Invocations({ runtime, log, concurrency });
        const subscriptions = new Subscriptions({ runtime, log, idleMs: 600_000 });
        // The model in the host asks through this door: the service's rules, not the operator's.
        const policy = doorPolicyOf(service);
        await serveStdio(createRuntimeMcpServer({ runtime, invocations, subscriptions, log, policy }), {
          log,
          onShutdown: async () => {
            await invocations.drain();
            await ledger.close();
          },
        });
      },
    );
}

/**
 * `runtime.service` of the home's settings, read once at start. A problem there (a mistyped
 * `allow_override`, a server without a command) refuses the start, naming the field: the doors'
 * rules are not left to a default the operator did not mean.
 */
async function serviceSettings(home: string) {
  const { join } = await import('node:path');
  const { ConfigError, loadSettings } = await import('../../core/index.js');
  const file = join(home, 'firstlight.yaml');
  const { settings, problems } = loadSettings(file);
  const own = [
    ...new Set(
      problems
        .filter((p) => p.includes(': runtime.service'))
        .map((p) => p.replace(/; using the default$/, '')),
    ),
  ];
  if (own.length > 0) {
    throw new ConfigError(own.join('; '), {
      code: 'CONFIG_INVALID',
      file,
      hint: `fix runtime.service in ${file} (docs/settings.md: runtime.service.allow_override, runtime.service.servers)`,
    });
  }
  return settings.runtime.service;
}
