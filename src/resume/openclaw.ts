import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { ConfigError, homePaths, readTextIfExists } from '../core/index.js';
import {
  type Anchor,
  cutFront,
  MAX_STORED_ANCHORS,
  MAX_STORED_TAIL_CHARS,
  type SelfState,
  withSelfState,
} from './self-state.js';

/**
 * The parts of an OpenClaw self-state file (`src/cognition/self-state.schema.ts` there) that
 * firstlight keeps: the stream tail and the verbatim anchors. Everything else in the file
 * (identity, relationships, narrative thread…) is OpenClaw's own and is left alone; unknown
 * fields are allowed, so a newer OpenClaw file still reads.
 */
const openClawSelfState = z.looseObject({
  lastUpdated: z.string().optional(),
  streamTail: z
    .looseObject({
      raw: z.string(),
      capturedAt: z.string().optional(),
      sessionKey: z.string().optional(),
    })
    .optional(),
  verbatimAnchors: z
    .array(
      z.looseObject({
        raw: z.string(),
        triggerType: z.string(),
        capturedAt: z.string().optional(),
        internalVibe: z.string().optional(),
      }),
    )
    .default([]),
});

export interface OpenClawImport {
  /** The firstlight self-state file written. */
  file: string;
  /** The OpenClaw file read. */
  from: string;
  stream_tail_chars: number;
  anchors_imported: number;
  anchors_stored: number;
  session_key: string;
  captured_at: string;
}

/**
 * Reads an OpenClaw self-state file into firstlight's `self-state.json` in `home`: `streamTail.raw`
 * becomes the stream tail (the next session wakes up reading it), each `verbatimAnchors[]` entry
 * an anchor (`raw` → text, `triggerType` → trigger, `capturedAt` kept). Anchors already stored
 * stay, an imported phrase moves to the newest place; per-session records are kept as they are.
 */
export async function importOpenClawSelfState(
  home: string,
  from: string,
  options: { now?: Date } = {},
): Promise<OpenClawImport> {
  const text = readTextIfExists(from);
  if (text === undefined) {
    throw new ConfigError(`no OpenClaw self-state at ${from}`, {
      code: 'NOT_FOUND',
      file: from,
      hint: "pass the path of OpenClaw's self-state JSON file (the one with streamTail and verbatimAnchors)",
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${from} is not valid JSON (${(error as Error).message})`, {
      code: 'IMPORT_INVALID',
      file: from,
      hint: 'pass an OpenClaw self-state file as OpenClaw wrote it',
    });
  }
  const parsed = openClawSelfState.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `${from} is not an OpenClaw self-state: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`,
      {
        code: 'IMPORT_INVALID',
        file: from,
        hint: 'an OpenClaw self-state has streamTail {raw} and verbatimAnchors [{raw, triggerType}]',
      },
    );
  }
  const source = parsed.data;
  if (!source.streamTail && source.verbatimAnchors.length === 0) {
    throw new ConfigError(`${from} has neither a stream tail nor anchors: nothing to import`, {
      code: 'IMPORT_EMPTY',
      file: from,
      hint: 'OpenClaw writes streamTail when it internalizes; import after a session that did',
    });
  }
  const now = (options.now ?? new Date()).toISOString();
  const capturedAt = source.streamTail?.capturedAt ?? source.lastUpdated ?? now;
  const imported: Anchor[] = source.verbatimAnchors.map((a) => ({
    text: a.raw,
    trigger: a.triggerType,
    captured_at: a.capturedAt ?? capturedAt,
  }));
  const file = homePaths(home).selfState;
  return withSelfState(file, async (read, write) => {
    if (read.status === 'malformed') {
      // Never silently replaced: the unreadable file is kept beside the new one.
      renameSync(file, join(dirname(file), `self-state.malformed-${Date.parse(now)}.json`));
    }
    const previous = read.status === 'ok' ? read.state : undefined;
    const texts = new Set(imported.map((a) => a.text));
    const anchors = [...(previous?.anchors ?? []).filter((a) => !texts.has(a.text)), ...imported].slice(
      -MAX_STORED_ANCHORS,
    );
    const sessionKey = source.streamTail?.sessionKey ?? previous?.session_key ?? 'openclaw';
    const state: SelfState = {
      version: 1,
      stream_tail: source.streamTail
        ? cutFront(source.streamTail.raw, MAX_STORED_TAIL_CHARS)
        : (previous?.stream_tail ?? ''),
      anchors,
      session_key: sessionKey,
      session_id: null,
      captured_at: capturedAt,
      source: 'openclaw',
      tail_injected: null,
      sessions: previous?.sessions ?? {},
    };
    await write(state);
    return {
      file,
      from,
      stream_tail_chars: state.stream_tail.length,
      anchors_imported: imported.length,
      anchors_stored: anchors.length,
      session_key: sessionKey,
      captured_at: capturedAt,
    };
  });
}
