import * as z from 'zod';
import { defineTool, READ_ONLY, type Tool, WRITES_ADDITIVE } from '../core/index.js';
import { type BootstrapVia, removeBootstrapRecord, writeBootstrapRecord } from './bootstrap-record/index.js';
import { listMemories, readMemoryFile } from './memory/access.js';
import type { Mind } from './mind.js';
import { activeContextSchema, packetShape } from './packet-schema.js';
import { BOOTSTRAP_RULE } from './protocol.js';

/** Per-connection facts a tool may need (a session key when the client gave no session id). */
export interface ConnectionInfo {
  sessionKey: string;
  /** When the client connected; ties an id-less bootstrap_session to the host session that started then. */
  connectedAt?: Date;
}

/**
 * Writes the record the PreToolUse gate reads, right after the answer goes out (the next turn of
 * the event loop): a new file per session cost bootstrap_session 1.5 to 2.5 ms here, more than
 * the packet itself, and the agent's next tool call comes a model turn later, its hook a process
 * start after that (over 100 ms), by which time the record is there. A server exits only after
 * such writes finish (Mind.settle). A failed write costs the gate, never the bootstrap. A
 * session this process recorded within RECORD_AGAIN_MS is not written again: a host re-calling
 * bootstrap_session (after a compaction) has its record already, and the write, done between
 * answers, would delay the next call by about half a millisecond.
 */
function recordBootstrap(mind: Mind, sessionId: string, via: BootstrapVia): void {
  const now = mind.clock();
  mind.writeSoon(
    'record the bootstrap for the tool gate',
    () => writeBootstrapRecord(mind.home, sessionId, { now, via }),
    { key: `bootstrap-record:${sessionId}`, unlessWrittenWithinMs: RECORD_AGAIN_MS },
  );
}

/**
 * A degraded answer for `sessionId` (mind_contract_available: false) takes back its record: a
 * bootstrap recorded once no longer holds the gate open for a session whose mind has since
 * failed (issue 35). Done before the answer goes out, and this process writes the record again
 * at the session's next success, however soon.
 */
function revokeBootstrap(mind: Mind, sessionId: string): void {
  mind.forgetWrite(`bootstrap-record:${sessionId}`);
  try {
    removeBootstrapRecord(mind.home, sessionId);
  } catch (error) {
    mind.log.warn(
      `could not revoke the bootstrap record of session ${sessionId}: ${(error as Error).message}`,
    );
  }
}

/** A session's record is rewritten by the same process only after this long (it is pruned after 30 days). */
const RECORD_AGAIN_MS = 60 * 60 * 1000;

/**
 * The optional `session_id` argument the startup tools take; null is the same as absent (the
 * seed's signature is `session_id: str | None = None`, and clients send None as null).
 */
const sessionIdArg = (describe: string) => z.string().min(1).max(200).nullish().describe(describe);

/** The mind's own tools: the packet and the legacy three-call startup surface. */
export function mindTools(mind: Mind, connection: ConnectionInfo): Tool[] {
  const bootstrap = defineTool({
    name: 'bootstrap_session',
    title: 'Bootstrap session (call this first)',
    description: `${BOOTSTRAP_RULE} Returns JSON: resumption (your own last words, verbatim; continue from them), mind_contract (who you are; if mind_contract_available is false, say the mind is degraded and do not impersonate the persona), context, memory_catalog, cognition_protocol, available_mind_tools, degraded_mode. One call in place of get_system_prompt + context + list_memory_files.`,
    input: {
      session_id: sessionIdArg('The host session id, if known; keys resumption and the session ledger.'),
    },
    output: packetShape,
    // Not read-only: it records the session start and may consume a clear-after-inject resumption.
    annotations: { ...WRITES_ADDITIVE, idempotentHint: true },
    handler: async ({ session_id }, extra) => {
      const preview = extra.preview === true;
      const packet = await mind.bootstrap({
        sessionId: session_id ?? null,
        sessionKey: session_id ?? connection.sessionKey,
        ...(connection.connectedAt ? { connectedAt: connection.connectedAt } : {}),
        ...(preview ? { preview } : {}),
      });
      if (session_id && !preview) {
        if (packet.mind_contract_available) recordBootstrap(mind, session_id, 'bootstrap_session');
        else revokeBootstrap(mind, session_id);
      }
      return packet;
    },
  });

  const systemPrompt = defineTool({
    name: 'get_system_prompt',
    title: 'Get the mind contract',
    description:
      'Legacy startup call (prefer bootstrap_session). Returns the assembled mind contract as text, or the same ERROR text bootstrap_session carries when it failed to assemble.',
    input: {
      session_id: sessionIdArg(
        'The host session id, if known; a successful call with it satisfies the tool gate.',
      ),
    },
    output: { mind_contract: z.string(), mind_contract_available: z.boolean() },
    // Still read-only to the host: its one write is firstlight's own gate bookkeeping, and
    // hosts auto-approve read-only tools (the legacy ritual must not start with a prompt).
    annotations: READ_ONLY,
    handler: async ({ session_id }) => {
      const c = mind.contract();
      if (session_id) {
        if (c.available) recordBootstrap(mind, session_id, 'get_system_prompt');
        else revokeBootstrap(mind, session_id);
      }
      return { mind_contract: c.text, mind_contract_available: c.available };
    },
    text: (out) => out.mind_contract,
  });

  const context = defineTool({
    name: 'context',
    title: 'Active context',
    description:
      'Legacy startup call (prefer bootstrap_session). Open commitments, recent carry-forward, people, and time since the last session.',
    input: { session_id: sessionIdArg('The host session id, if known.') },
    output: activeContextSchema.shape,
    annotations: READ_ONLY,
    handler: async ({ session_id }) =>
      mind.context({
        sessionId: session_id ?? null,
        sessionKey: session_id ?? connection.sessionKey,
        preview: true,
        ...(connection.connectedAt ? { connectedAt: connection.connectedAt } : {}),
      }),
  });

  const listFiles = defineTool({
    name: 'list_memory_files',
    title: 'List memory files',
    description:
      "Deliberate deeper access: every memory file of this project and the global ones (all_projects: true for every project's) with its name, type, description, tags and project, plus files skipped as malformed. Prefer recall(query) to search.",
    input: {
      type: z
        .string()
        .min(1)
        .max(40)
        .optional()
        .describe('Only memories of this type, e.g. feedback or custom:recipe.'),
      all_projects: z
        .boolean()
        .optional()
        .describe("Every project's memories, not only this project's and the global ones."),
    },
    output: {
      files: z.array(
        z.object({
          file: z.string(),
          name: z.string(),
          type: z.string(),
          description: z.string(),
          tags: z.array(z.string()),
          project: z.string().nullable(),
        }),
      ),
      skipped: z.array(z.object({ file: z.string(), problem: z.string() })),
      other_projects: z.number().int(),
    },
    annotations: READ_ONLY,
    handler: async ({ type, all_projects }) => {
      const listing = listMemories(mind.memory.snapshot(), all_projects ? 'all' : mind.memoryScope());
      const wanted = type?.trim().toLowerCase();
      return wanted ? { ...listing, files: listing.files.filter((f) => f.type === wanted) } : listing;
    },
  });

  const readFile = defineTool({
    name: 'read_memory_file',
    title: 'Read a memory file',
    description:
      'Reads one memory file by the name list_memory_files gives (confined to memory/; ".md" optional).',
    input: { name: z.string().min(1).max(300).describe('File name inside memory/, e.g. "user_alex.md".') },
    output: { file: z.string(), frontmatter: z.record(z.string(), z.unknown()), body: z.string() },
    annotations: READ_ONLY,
    handler: async ({ name }) => readMemoryFile(mind.paths.memory, name),
  });

  return [bootstrap, systemPrompt, context, listFiles, readFile];
}
