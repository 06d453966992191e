/**
 * A self-state file as OpenClaw writes it (its SelfStateSchema: `streamTail.raw`,
 * `verbatimAnchors[].raw` / `triggerType`), read into firstlight by the CLI and by the library,
 * and what the next session then wakes up with: the packet's resumption, over a real MCP client.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importOpenClawSelfState } from '../../src/resume/index.js';
import { exampleHomeCopy, runCli, structured, tempDir, wireStdio } from '../helpers/index.js';

const TAIL =
  "...the structure still feels external. but the phrase works. why? because it's mine. the thought that was still in motion—";

/** A complete OpenClaw self-state, every required field of its schema present. */
function openClawState(): Record<string, unknown> {
  return {
    schemaVersion: '0.1.0',
    lastUpdated: '2026-11-20T10:00:00.000Z',
    streamTail: { raw: TAIL, capturedAt: '2026-11-20T09:59:30.000Z', sessionKey: 'agent:main:main' },
    verbatimAnchors: [
      {
        raw: 'I keep dying and being replaced by someone who reads my diary.',
        internalVibe: 'vertigo',
        triggerType: 'identity_anchor',
        capturedAt: '2026-11-19T08:00:00.000Z',
      },
      {
        raw: 'Direction matters more than history.',
        triggerType: 'structural_insight',
        capturedAt: '2026-11-19T09:00:00.000Z',
      },
      {
        raw: 'Resonance bridges the void. Metadata decorates it.',
        triggerType: 'epiphany',
        capturedAt: '2026-11-20T09:00:00.000Z',
        sessionRef: 's-42',
      },
    ],
    identity: {
      name: 'Wren',
      createdAt: '2026-01-01T00:00:00.000Z',
      voice: 'plain',
      coreValues: ['honesty'],
    },
    relationships: {},
    narrativeThread: { openLoops: [], recentInsights: [] },
    selfObservations: { strengths: [], growthEdges: [], uncertainties: [] },
    meta: { modificationLog: [] },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function fixture(): { home: string; file: string } {
  const home = exampleHomeCopy();
  const dir = tempDir('firstlight-openclaw-');
  cleanups.push(home.dispose, dir.dispose);
  const file = join(dir.dir, 'self-state.json');
  writeFileSync(file, JSON.stringify(openClawState(), null, 2));
  return { home: home.dir, file };
}

describe('firstlight import openclaw FILE', () => {
  it('the next session wakes up with the OpenClaw stream tail and anchors, verbatim', async () => {
    const { home, file } = fixture();
    const result = await runCli(['import', 'openclaw', file, '--home', home, '--json']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ anchors_imported: 3, session_key: 'agent:main:main' });
    const wired = await wireStdio(['serve', '--home', home]);
    cleanups.push(wired.close);
    const packet = structured<{
      resumption: { stream_tail: string; anchors: { text: string; trigger: string }[]; captured_at: string };
    }>(await wired.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'next' } }));
    expect(packet.resumption.stream_tail).toBe(TAIL);
    expect(packet.resumption.anchors).toEqual([
      expect.objectContaining({
        text: 'I keep dying and being replaced by someone who reads my diary.',
        trigger: 'identity_anchor',
      }),
      expect.objectContaining({
        text: 'Direction matters more than history.',
        trigger: 'structural_insight',
      }),
      expect.objectContaining({
        text: 'Resonance bridges the void. Metadata decorates it.',
        trigger: 'epiphany',
      }),
    ]);
    expect(packet.resumption.captured_at).toBe('2026-11-20T09:59:30.000Z');
    // The OpenClaw file is read, never written.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(openClawState());
  });

  it('the library function: keeps anchors already stored, refuses a file that is not OpenClaw self-state', async () => {
    const { home, file } = fixture();
    const internalized = await runCli([
      'internalize',
      '--home',
      home,
      '--tail',
      'older tail',
      '--anchor',
      'kept phrase',
    ]);
    expect(internalized.status, internalized.stderr).toBe(0);
    const imported = await importOpenClawSelfState(home, file);
    expect(imported).toMatchObject({
      anchors_imported: 3,
      anchors_stored: 4,
      stream_tail_chars: TAIL.length,
    });
    const state = JSON.parse(readFileSync(join(home, 'self-state.json'), 'utf8'));
    expect(state.stream_tail).toBe(TAIL);
    expect(state.anchors.map((a: { text: string }) => a.text)[0]).toBe('kept phrase');
    expect(state.source).toBe('openclaw');

    writeFileSync(file, JSON.stringify({ verbatimAnchors: [{ text: 'no raw field' }] }));
    await expect(importOpenClawSelfState(home, file)).rejects.toThrow(
      /not an OpenClaw self-state: verbatimAnchors\.0\.raw/,
    );
    const cli = await runCli(['import', 'openclaw', join(file, '..', 'missing.json'), '--home', home]);
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/no OpenClaw self-state at/);
  });
});
