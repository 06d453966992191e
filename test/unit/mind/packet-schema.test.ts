import { readFileSync } from 'node:fs';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { createMind, packetSchema } from '../../../src/mind/index.js';
import { exampleHomeCopy, REPO_ROOT } from '../../helpers/index.js';

/** A real packet with unknown fields added at the top and inside every nested object. */
async function packetWithFutureFields(): Promise<Record<string, unknown>> {
  const h = exampleHomeCopy();
  try {
    const mind = createMind({ home: h.dir, clock: () => new Date('2026-11-22T10:00:00Z') });
    await mind.bootstrap({ sessionId: 'before' });
    const packet = JSON.parse(JSON.stringify(await mind.bootstrap({ sessionId: 'now' })));
    mind.close();
    packet.future_top_level = { anything: [1, 2] };
    packet.context.future = true;
    packet.context.people[0].pronouns = 'they';
    packet.context.last_session.future = 'x';
    packet.memory_catalog.future = 1;
    packet.degraded_mode.future = [];
    packet.budget.future = 0;
    packet.guidance[0].future = 'x';
    packet.resumption = {
      stream_tail: 't',
      anchors: [{ text: 'a', trigger: 'b', future: 1 }],
      captured_at: 'now',
      session_key: 'k',
      future: 2,
    };
    packet.taskspace = { name: 'n', description: 'd', initial_prompt: null, future: 3 };
    return packet;
  } finally {
    h.dispose();
  }
}

describe('packet schema v1 permits unknown future fields (seed: clients ignore unknown keys)', () => {
  it('the zod schema accepts them and keeps them', async () => {
    const packet = await packetWithFutureFields();
    const parsed = packetSchema.safeParse(packet);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data).toEqual(packet);
  });

  it('the shipped JSON Schema accepts them (validated as the MCP SDK client validates)', async () => {
    const schema = JSON.parse(readFileSync(`${REPO_ROOT}/schema/bootstrap-session.v1.json`, 'utf8'));
    const validate = new AjvJsonSchemaValidator().getValidator(schema);
    const result = validate(await packetWithFutureFields());
    expect(result.errorMessage ?? '').toBe('');
    expect(result.valid).toBe(true);
    // And it still rejects a packet missing a required key.
    const broken = await packetWithFutureFields();
    delete broken.mind_contract;
    expect(validate(broken).valid).toBe(false);
  });
});
