import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { asFirstlightError } from '../../core/index.js';
import { type InvokeResult, listProfiles, sourcesOf } from '../../runtime/index.js';
import { packageVersion } from '../version.js';
import { admit } from './door-policy.js';
import { ApiError } from './errors.js';
import { readHandoffChecked, readJournalRows } from './reads.js';
import { invokeRequestOf, type ServiceDeps } from './routes.js';
import { handoffQuery, invocationFields, journalQuery } from './schemas.js';

/**
 * The runtime's MCP door (streamable HTTP at `/mcp` of `runtime serve`, and `runtime mcp` on
 * stdio): an agent inside any host hands work to a fresh session of a persona — a validator
 * receives only what the policy allows, exactly as from the CLI or the HTTP door, because all
 * three run the same pipeline. Long invocations report progress (each substrate event, and a
 * heartbeat) to a client that sent a progress token.
 */

export const RUNTIME_INSTRUCTIONS = [
  'The firstlight persona runtime: invoke_persona runs a persona in a role as a fresh session and returns its result (status, meta, output); a refused invocation names its reason in meta.refusal_reason and ran nothing.',
  'To have work checked, invoke a validator with the artifact handoff id (meta.handoff_id of the builder session); it receives only the artifact, its claims and governance.',
  'list_personas shows what can be invoked; read_journal and read_handoff read the ledger.',
].join('\n\n');

/** How often a running invocation reports that it is still running. */
const HEARTBEAT_MS = 5000;

export function createRuntimeMcpServer(deps: ServiceDeps): McpServer {
  const server = new McpServer(
    { name: 'firstlight-runtime', title: 'firstlight persona runtime', version: packageVersion() },
    { instructions: RUNTIME_INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const guard =
    <A>(fn: (args: A, extra: Extra) => Promise<Answer>) =>
    async (args: A, extra: Extra): Promise<Answer> => {
      try {
        return await fn(args, extra);
      } catch (error) {
        // A door refusal (an override, a server not declared): the model reads the code and the fix.
        if (error instanceof ApiError) return refusalAnswer(error.code, error.message, error.fix);
        const failure = asFirstlightError(error);
        if (failure.code === 'INTERNAL')
          deps.log.error(`runtime tool failed: ${(error as Error).stack ?? error}`);
        return failure.toToolResult();
      }
    };

  server.registerTool(
    'invoke_persona',
    {
      title: 'Invoke a persona',
      description:
        "Run a persona in a role as a fresh agent session (one_shot) and return {status, meta, output, outcome?}. status refused: meta.refusal_reason says why (e.g. mutating_tools_for_role, validator_extra_context), nothing ran. Hand a builder's artifact to a validator with handoffs: [the artifact id].",
      inputSchema: { ...invocationFields, task: z.string().min(1).describe('the task') },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    guard(async (args, extra) => {
      const admitted = await admit(args, { ...deps, door: 'mcp' });
      const { record, done } = await deps.invocations.submit(invokeRequestOf(admitted, args.task));
      const progressToken = extra._meta?.progressToken;
      let stopProgress = () => {};
      if (progressToken !== undefined) {
        stopProgress = reportProgress(deps, record.id, (progress, message) =>
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, message },
          }),
        );
      }
      try {
        const final = await done;
        const result = final.result as
          | InvokeResult
          | { error: { code: string; message: string; fix?: string } };
        if ('error' in result) {
          const { code, message, fix } = result.error;
          return refusalAnswer(code, message, fix);
        }
        return {
          content: [{ type: 'text', text: `${summaryLine(result)}\n\n${JSON.stringify(result, null, 2)}` }],
          structuredContent: { ...result, invocation_id: record.id },
        };
      } finally {
        stopProgress();
      }
    }),
  );

  server.registerTool(
    'list_personas',
    {
      title: 'List personas',
      description:
        'The persona profiles this runtime can invoke: ref (pass it as persona), version, roles, surfaces, or the error that keeps one from loading.',
      inputSchema: {},
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guard(async () => {
      const { context } = deps.runtime;
      const personas = listProfiles({ home: context.home, cwd: context.cwd, sources: sourcesOf(context) });
      return json({ personas });
    }),
  );

  server.registerTool(
    'read_journal',
    {
      title: 'Read the journal',
      description:
        "The runtime's DOLCHEO journal: sessions, transitions, refusals, denials, overrides, teardowns; filter by since, type, session; the newest `limit` rows.",
      inputSchema: journalQuery.shape,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guard(async (args) => {
      return json({ entries: await readJournalRows(deps.runtime, args, 200) });
    }),
  );

  server.registerTool(
    'read_handoff',
    {
      title: 'Read a handoff',
      description:
        'A stored handoff by id, its sha256, and whether it verifies against the journal row that stored it.',
      inputSchema: handoffQuery.shape,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guard(async (args) => {
      const read = await readHandoffChecked(deps.runtime, args.id);
      if (!read) {
        return {
          content: [
            {
              type: 'text',
              text: `NOT_FOUND: no handoff ${args.id}\n  fix: use an id from meta.handoff_id or the journal`,
            },
          ],
          isError: true,
        };
      }
      return json(read);
    }),
  );
  return server;
}

type Answer = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};
type Extra = {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
};

/** An error the model reads and recovers from: `CODE: message` and a `fix:` line. */
function refusalAnswer(code: string, message: string, fix: string | undefined): Answer {
  return {
    content: [{ type: 'text', text: `${code}: ${message}${fix ? `\n  fix: ${fix}` : ''}` }],
    isError: true,
  };
}

function json(value: Record<string, unknown>): Answer {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

function summaryLine(result: InvokeResult): string {
  const m = result.meta;
  const why = m.refusal_reason ?? m.failure_reason;
  return `${result.status}${why ? ` (${why})` : ''}: ${m.persona} as ${m.role}${m.mode ? ` in ${m.mode}` : ''}, session ${m.session_id}${m.handoff_id ? `, handoff ${m.handoff_id}` : ''}${m.detail ? `\n${m.detail}` : ''}`;
}

/** Follows an invocation's events and reports each (and a heartbeat) as progress; returns the stop. */
function reportProgress(
  deps: ServiceDeps,
  id: string,
  send: (progress: number, message: string) => Promise<void>,
): () => void {
  const stopped = new AbortController();
  const started = Date.now();
  let progress = 0;
  const report = (message: string) => void send(++progress, message).catch(() => stopped.abort());
  const heartbeat = setInterval(
    () => report(`running, ${Math.round((Date.now() - started) / 1000)} s`),
    HEARTBEAT_MS,
  );
  heartbeat.unref();
  void (async () => {
    const stream = await deps.invocations.events(id);
    if (!stream) return;
    for (let cursor = 0; !stopped.signal.aborted; ) {
      const records = await stream.read(cursor);
      for (const record of records) {
        cursor = record.seq;
        if (record.event !== 'result') report(progressMessage(record.event, record.data));
      }
      if (records.length === 0) {
        if (stream.isEnded) return;
        await stream.wait(cursor, stopped.signal);
      }
    }
  })().catch(() => {});
  return () => {
    clearInterval(heartbeat);
    stopped.abort();
  };
}

function progressMessage(event: string, data: unknown): string {
  const d = (data ?? {}) as Record<string, unknown>;
  if (event === 'text') return `text: ${String(d.text ?? '').slice(0, 120)}`;
  if (event === 'tool_call') return `tool call: ${String(d.name)}`;
  if (event === 'denial') return `denied: ${String(d.tool)} (${String(d.reason)})`;
  if (event === 'state') return `${String(d.state)}`;
  return event;
}
