/**
 * One handler per hook event, each importing what its event needs statically: the hook's
 * per-event bundles (scripts/bundle.mjs) each take one of these, and tree shaking leaves the
 * others out, so a tool call loads the gate without the packet renderer and SessionStart the
 * packet without the gate. What an event needs only now and then (the settings parser, the glob
 * compiler, the caution table's builder) stays a dynamic import.
 */
import { writeBootstrapRecord } from '../../mind/bootstrap-record/index.js';
import { recordDeniedCall } from '../../mind/cautions/index.js';
import type { HookInput, HookResult, HostAdapter } from '../types.js';
import { captureResumption } from './capture.js';
import { gateConfigNote, loadGateConfig } from './gate-config.js';
import { postToolUse } from './post-tool-use.js';
import { preCompact } from './pre-compact.js';
import { type GateVerdict, preToolUse } from './pre-tool-use.js';
import { recordGate } from './record-gate.js';
import type { EventHandler, HookRunOptions } from './run-hook.js';
import { sessionStart } from './session-start.js';
import { toolCautions } from './tool-cautions.js';

const clockOf = (options: HookRunOptions) => options.clock ?? (() => new Date());

/**
 * The transcript format the capture reads: the host's own (Copilot CLI's events.jsonl reaches
 * only its agentStop), the gate's, else Claude Code's, whose hooks VS Code and Cursor imitate.
 */
const transcriptOf = (adapter: HostAdapter) =>
  adapter.caps.transcript ?? ('transcript' in adapter.caps.gate ? adapter.caps.gate.transcript : 'claude');

/** PreToolUse: the gate, then (with a home) the `applies_to` cautions. */
export const preToolUseHandler: EventHandler = async (adapter, input, options, home) => {
  if (!home.exists) {
    // Only the gate: cautions and the event store live in the home, which is not there.
    const fix = `no firstlight home at ${options.home}: run firstlight init --home ${options.home}`;
    const result = await gate(adapter, input, options);
    return result.kind === 'deny' ? { kind: 'deny', reason: `${result.reason} (${fix})` } : result;
  }
  const clock = clockOf(options);
  const verdict = await gate(adapter, input, options);
  if (verdict.kind === 'deny') return recordDenial(input, verdict, options.home, clock());
  const noted = (result: HookResult): HookResult =>
    verdict.note ? { ...result, note: verdict.note } : result;
  if ('provedByTranscript' in verdict && input.sessionId)
    await keepTranscriptProof(options.home, input.sessionId, clock());
  // Cautions fail open: the gate has already decided what must be proven.
  try {
    const cautions = await toolCautions(input, {
      home: options.home,
      now: clock(),
      caps: adapter.caps.toolHooks,
      when: 'pre',
    });
    if (cautions.deny)
      return noted(await recordDenial(input, { kind: 'deny', reason: cautions.deny }, options.home, clock()));
    if (cautions.ask) return noted({ kind: 'ask', reason: cautions.ask });
    if (cautions.context) return noted({ kind: 'context', text: cautions.context });
  } catch (error) {
    return {
      kind: 'none',
      note: `firstlight hook pre-tool-use: cautions skipped (${(error as Error).message})`,
    };
  }
  return verdict;
};

/** PostToolUse and its failure event: the call into the event store, paired with its expectation. */
export const postToolUseHandler: EventHandler = (adapter, input, options) =>
  postToolUse(input, { home: options.home, clock: clockOf(options), caps: adapter.caps.toolHooks });

/** SessionStart: the rendered packet, once per (session, source). */
export const sessionStartHandler: EventHandler = (_adapter, input, options) =>
  sessionStart(input, { home: options.home, projectDir: input.cwd ?? options.cwd, clock: clockOf(options) });

/** Stop: the agent's last words as resumption state, then the session's surprises offered. */
export const stopHandler: EventHandler = async (adapter, input, options) => {
  const clock = clockOf(options);
  const captured = await captureResumption(input, {
    home: options.home,
    clock,
    transcript: transcriptOf(adapter),
  });
  // The session's high-surprise observations no reflect has cited: candidates for the next
  // packet. Never blocks the stop.
  if (input.sessionId) {
    try {
      const { offerSurprises } = await import('../../mind/observation/index.js');
      await offerSurprises(options.home, input.sessionId, clock());
    } catch (error) {
      const note = `firstlight hook stop: surprises not offered (${(error as Error).message})`;
      return withQueued({ kind: 'none', note }, await queueForCapture(adapter, input, options));
    }
  }
  return withQueued(captured, await queueForCapture(adapter, input, options));
};

/**
 * The session queued for capture (capture/queue: a job file and a detached worker), so the
 * hook returns at its usual cost. Never blocks the stop: a failure is a note.
 */
async function queueForCapture(
  adapter: HostAdapter,
  input: HookInput,
  options: HookRunOptions,
): Promise<string | null> {
  if (!input.sessionId) return null;
  try {
    const { queueCapture, startCaptureWorker } = await import('../../capture/queue/index.js');
    queueCapture(options.home, {
      session: input.sessionId,
      host: adapter.id,
      transcript: input.transcriptPath ?? null,
      format: transcriptOf(adapter),
      cwd: input.cwd ?? options.cwd,
      event: input.event,
      queued_at: clockOf(options)().toISOString(),
    });
    startCaptureWorker(options.home, options.env);
    return null;
  } catch (error) {
    return `firstlight hook ${input.event}: capture not queued (${(error as Error).message})`;
  }
}

function withQueued(result: HookResult, note: string | null): HookResult {
  if (note === null || result.kind !== 'none') return result;
  return { ...result, note: result.note ? `${result.note}; ${note}` : note };
}

/** PreCompact: one more compaction counted, and the last words captured before it. */
export const preCompactHandler: EventHandler = async (adapter, input, options) => {
  // Gemini CLI asks before every turn and compacts only past its threshold; its AfterAgent
  // (our stop) has already captured the turn, so an automatic PreCompress is no event.
  if (adapter.caps.autoPreCompactEveryTurn && input.compactTrigger !== 'manual') return { kind: 'none' };
  const captured = await preCompact(input, {
    home: options.home,
    clock: clockOf(options),
    transcript: transcriptOf(adapter),
  });
  // What the compaction is about to summarise away is captured first.
  return withQueued(captured, await queueForCapture(adapter, input, options));
};

/**
 * A refused call is a tool call too: it goes into the event store (`outcome: denied`), since no
 * PostToolUse follows it. Fails open: the refusal stands whatever the store does.
 */
async function recordDenial(
  input: HookInput,
  result: HookResult & { kind: 'deny' },
  home: string,
  now: Date,
): Promise<HookResult> {
  if (!input.toolName) return result;
  try {
    await recordDeniedCall(
      home,
      {
        host: input.host,
        session: input.sessionId,
        tool: input.toolName,
        args: input.toolInput,
        reason: result.reason,
        toolUseId: input.toolUseId,
      },
      now,
    );
  } catch {
    // observation fails open
  }
  return result;
}

/**
 * A bootstrap_session result found in the transcript, kept as the session's bootstrap record:
 * the gate reads the record first, so the session's later gated calls answer without scanning
 * the transcript again (a 10 MB transcript cost a call about 40 ms). Fails open: without the
 * record the next call scans again.
 */
async function keepTranscriptProof(home: string, sessionId: string, now: Date): Promise<void> {
  try {
    await writeBootstrapRecord(home, sessionId, { now, via: 'transcript' });
  } catch {
    // the transcript proves it again next time
  }
}

/** The PreToolUse gate: allow, or deny with what the agent must call first. */
async function gate(adapter: HostAdapter, input: HookInput, options: HookRunOptions): Promise<GateVerdict> {
  const { gate } = adapter.caps;
  // Reached only through a file another host shares (.claude/settings.json) or an older install.
  if ('none' in gate)
    return { kind: 'none', note: `firstlight gate: not enforced on ${adapter.name}: ${gate.none}` };
  const config = await loadGateConfig(options.home, options.env);
  const deps = { config, env: options.env, home: options.home, toolPrefix: adapter.caps.toolPrefix };
  const verdict =
    'record' in gate
      ? recordGate(input, { ...deps, gate: gate.record })
      : preToolUse(input, { ...deps, transcript: gate.transcript });
  const note = gateConfigNote(config);
  return note ? { ...verdict, note } : verdict;
}
