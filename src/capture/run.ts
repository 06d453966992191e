/**
 * One session's capture, step by step: the settings that apply (opt-out), the conversation
 * read from the transcript, stage 1's candidates from what is new since the last capture, the
 * cap, the writes (near-duplicates update or supersede), the digest and its open ends, the
 * report. And the queue: jobs claimed one by one under a cross-process lock, each run once.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  homePaths,
  readTextIfExists,
  redactorFor,
  withFileLock,
  writeFileAtomically,
} from '../core/index.js';
import {
  createMind,
  type Mind,
  openRecallIndex,
  type RecallIndex,
  refreshRelated,
  relatedQuery,
  rememberIn,
} from '../mind/index.js';
import type { TranscriptFormat } from '../resume/transcripts/index.js';
import { type Conversation, readConversation } from './conversation.js';
import type { Candidate } from './extract/candidate.js';
import { clipLine } from './extract/candidate.js';
import { type Digest, findDigest } from './extract/digest.js';
import { findFixes } from './extract/fixes.js';
import { findInstructions } from './extract/instructions.js';
import { appendReport, type CaptureReport, readSessionState, writeSessionState } from './log.js';
import {
  type CaptureJob,
  captureDir,
  queueDir,
  queuedJobs,
  WORKER_STALE_MS,
  workerLockTarget,
} from './queue/index.js';
import { captureSettingsFor } from './settings.js';
import { type Skip, writeCandidate } from './write.js';

export interface CaptureOptions {
  home: string;
  clock?: () => Date;
  /** The environment the curator's substrate reads keys and base URLs from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Stage 1: what the new part of the conversation states plainly, instructions first. */
export function stageOne(conversation: Conversation, since = 0): Candidate[] {
  const said = conversation.said.filter((s) => s.line > since);
  const calls = conversation.calls.filter((c) => c.line > since);
  const seen = new Set<string>();
  return [...findInstructions(said), ...findFixes(calls)].filter((c) => {
    const key = c.name.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Captures one session now and reports what it wrote, proposed and skipped. */
export async function captureSession(job: CaptureJob, options: CaptureOptions): Promise<CaptureReport> {
  const clock = options.clock ?? (() => new Date());
  const started = performance.now();
  const { settings, offBy } = captureSettingsFor(options.home, job.cwd);
  const report = newReport(job, clock(), 'captured', settings.mode);
  const finish = (status: CaptureReport['status'], why?: string): CaptureReport => {
    report.status = status;
    if (why) report.why = why;
    report.ms = Math.round(performance.now() - started);
    appendReport(options.home, report);
    return report;
  };
  if (offBy) return finish('skipped', `capture: off in ${offBy}`);
  if (!job.transcript) return finish('skipped', 'no transcript: the host sent no transcript_path');
  let conversation: Conversation;
  try {
    conversation = readConversation(job.transcript, job.format);
  } catch (error) {
    return finish('failed', `transcript ${job.transcript} not read (${(error as Error).message})`);
  }
  const state = readSessionState(options.home, job.session);
  const firstPass = stageOne(conversation, state.through_line);
  let candidates = firstPass.map((c) => screened(options.home, c));
  let curatedDigest: string | null = null;
  if (settings.curator.substrate) {
    const { curate } = await import('./curator/index.js');
    const curated = await curate({
      home: options.home,
      cwd: job.cwd ?? options.home,
      session: job.session,
      conversation,
      since: state.through_line,
      candidates: firstPass.filter((c) => !('why' in screened(options.home, c))),
      settings: settings.curator,
      redactor: redactorFor(options.home),
      env: options.env ?? process.env,
      now: clock(),
    });
    report.curator = curated.report;
    report.tokens = curated.report.tokens;
    // The curator's answer replaces stage 1's list (it kept, merged or dropped each); when it
    // was skipped or failed, stage 1's candidates stand.
    if (curated.memories) {
      candidates = curated.memories.map((c) => screened(options.home, c));
      report.skipped.push(...curated.dropped);
      curatedDigest = curated.digest;
    }
  }
  const mind = createMind({
    home: options.home,
    projectDir: job.cwd ?? options.home,
    clock,
    quickMemoryOverview: true,
    sweepLeftovers: false,
  });
  let index: RecallIndex | undefined;
  const recall = () => {
    index ??= openRecallIndex(mind);
    return index;
  };
  try {
    let room = settings.max_per_session - state.written;
    const review = settings.mode === 'review';
    for (const candidate of candidates) {
      if ('why' in candidate) {
        report.skipped.push(candidate);
        continue;
      }
      if (room <= 0) {
        report.skipped.push({
          what: candidate.name,
          why: `max_per_session (${settings.max_per_session}) reached`,
        });
        continue;
      }
      const outcome = await writeCandidate(candidate, { mind, recall, session: job.session, review });
      if ('why' in outcome) report.skipped.push(outcome);
      else {
        (review ? report.proposed : report.wrote).push(outcome);
        room--;
      }
    }
    const found = findDigest(conversation.said.filter((s) => s.line > state.through_line));
    const digest = curatedDigest
      ? {
          decisions: [curatedDigest],
          open: found?.open ?? [],
          evidence: found?.evidence ?? [`curator:${settings.curator.substrate}`],
        }
      : found;
    if (digest) report.digest = await writeDigest(mind, recall, job, digest, review);
    await writeSessionState(options.home, job.session, {
      through_line: conversation.lines,
      written: settings.max_per_session - Math.max(0, room),
    });
    report.related = await refreshNextStart(mind, recall(), clock());
  } finally {
    index?.close();
    mind.close();
  }
  return finish('captured');
}

/**
 * What the next session start names as related to where this one left off (the resumption
 * tail, the taskspace): searched here, off the host's path, and kept for the SessionStart hook.
 */
async function refreshNextStart(mind: Mind, index: RecallIndex, now: Date): Promise<number> {
  const packet = await mind.bootstrap({ preview: true });
  const entries = new Map(mind.memory.snapshot().entries.map((e) => [e.file, e]));
  return refreshRelated(mind.paths.cache, index, entries, relatedQuery(packet), mind.memoryScope(), now)
    .length;
}

/** A candidate whose words the redactor would change came from a secret or a private span: not kept. */
function screened(home: string, candidate: Candidate): Candidate | Skip {
  const redactor = redactorFor(home);
  const text = `${candidate.name}\n${candidate.description}\n${candidate.content}`;
  if (redactor.enabled && redactor.redact(text, {}) !== text)
    return { what: clipLine(redactor.redact(candidate.name, {}), 80), why: 'holds redacted text' };
  return candidate;
}

/** The session's digest memory (one per session, rewritten by a later capture) and its open ends carried forward. */
async function writeDigest(
  mind: Mind,
  recall: () => RecallIndex,
  job: CaptureJob,
  digest: Digest,
  review: boolean,
): Promise<string> {
  const day = job.queued_at.slice(0, 10);
  const name = `Session ${day} ${job.session.slice(0, 8)}`;
  const parts = [
    ...(digest.decisions.length > 0 ? ['Decisions:', ...digest.decisions.map((d) => `- ${d}`)] : []),
    ...(digest.open.length > 0 ? ['', 'Open ends:', ...digest.open.map((o) => `- ${o}`)] : []),
  ];
  const written = await rememberIn(
    { mind, recall },
    {
      type: 'session_digest',
      name,
      description: clipLine([...digest.decisions, ...digest.open].join('; '), 160),
      content: parts.join('\n').trim(),
      tags: ['captured'],
      replace: true,
      extra: {
        source: 'capture',
        session: job.session,
        evidence: digest.evidence,
        ...(review ? { status: 'proposed' } : {}),
      },
    },
  );
  if (!review && digest.open.length > 0) await carryForward(mind.home, digest.open);
  return written.name;
}

/** Appends open ends to memory/carry_forward.md (the next packet's "Carried forward"), once each. */
async function carryForward(home: string, items: string[]): Promise<void> {
  const file = homePaths(home).carryForward;
  await withFileLock(file, async () => {
    const text = readTextIfExists(file) ?? '';
    const fresh = items.filter((item) => !text.includes(item));
    if (fresh.length === 0) return;
    const prefix = text === '' ? '' : text.endsWith('\n') ? '' : '\n';
    await writeFileAtomically(file, `${text}${prefix}${fresh.map((i) => `- ${i}`).join('\n')}\n`);
  });
}

/** A queued job, or null when its file is not one. */
function readJob(path: string): CaptureJob | null {
  try {
    const job = JSON.parse(readFileSync(path, 'utf8')) as CaptureJob;
    if (typeof job.session !== 'string' || job.session === '') return null;
    const format: TranscriptFormat =
      job.format === 'codex' || job.format === 'gemini' || job.format === 'copilot' ? job.format : 'claude';
    return { ...job, format };
  } catch {
    return null;
  }
}

export interface RunQueueOptions extends CaptureOptions {
  /** Wait for a running worker to finish (`firstlight capture`); a worker itself does not wait. */
  wait: boolean;
}

/**
 * Runs every queued job once, under the capture lock (one worker per home at a time). A job is
 * claimed by moving it out of the queue first, so a failure is reported, never retried in a
 * loop. Returns the reports, or null when another worker holds the lock and `wait` is false.
 */
export async function runQueue(options: RunQueueOptions): Promise<CaptureReport[] | null> {
  const lock = workerLockTarget(options.home);
  const run = async () => {
    const reports: CaptureReport[] = [];
    const running = join(captureDir(options.home), 'running');
    mkdirSync(running, { recursive: true });
    for (let jobs = queuedJobs(options.home); jobs.length > 0; jobs = queuedJobs(options.home)) {
      for (const file of jobs) {
        const claimed = join(running, file);
        try {
          renameSync(join(queueDir(options.home), file), claimed);
        } catch {
          continue; // taken by a newer Stop's rename, or gone
        }
        const job = readJob(claimed);
        try {
          if (job) reports.push(await captureSession(job, options));
        } catch (error) {
          if (job) reports.push(failedReport(options.home, job, error));
        } finally {
          rmSync(claimed, { force: true });
        }
      }
    }
    return reports;
  };
  const all: CaptureReport[] = [];
  // A Stop that queued while this worker held the lock started no other worker (see
  // startCaptureWorker): after letting go, the queue is read once more, and run again if a job
  // came in between the last look and the release.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    try {
      all.push(
        ...(await withFileLock(lock, run, {
          waitMs: options.wait ? 10 * 60_000 : 1,
          staleMs: WORKER_STALE_MS,
        })),
      );
    } catch (error) {
      if (!options.wait && existsSync(`${lock}.lock`)) return round === 0 ? null : all;
      throw error;
    }
    if (queuedJobs(options.home).length === 0) break;
  }
  return all;
}

/** Times a worker goes back for jobs queued as it let go of the lock (each round drains the queue). */
const MAX_ROUNDS = 3;

/** A report for `job` with nothing written yet. */
function newReport(
  job: CaptureJob,
  at: Date,
  status: CaptureReport['status'],
  mode: CaptureReport['mode'],
): CaptureReport {
  const { session, host } = job;
  return {
    session,
    host,
    at: at.toISOString(),
    status,
    mode,
    wrote: [],
    proposed: [],
    skipped: [],
    digest: null,
    ms: 0,
    tokens: null,
  };
}

function failedReport(home: string, job: CaptureJob, error: unknown): CaptureReport {
  const report = newReport(job, new Date(), 'failed', 'auto');
  report.why = (error as Error).message;
  appendReport(home, report);
  return report;
}
