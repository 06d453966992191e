import { describe, expect, it } from 'vitest';
import * as runtime from '../../../src/runtime/index.js';

describe('runtime public surface', () => {
  it('names the library entry points, the policy data and the substrate registry', () => {
    for (const name of [
      'createRuntime',
      'loadProfile',
      'readJournal',
      'appendJournal',
      'readSession',
      'resolveSubstrate',
      'SUBSTRATE_FACTORIES',
      'ScriptedSubstrate',
      'ROLE_POLICY',
      'REFUSAL_REASONS',
      'HANDOFF_FIELDS',
      'applyVoice',
      'computeToolSet',
      'detect',
      'createFileLedger',
      'createMemoryLedger',
      'listProfiles',
      'EventBuffer',
      'StreamLog',
      'BACKPRESSURE_POLICIES',
    ]) {
      expect(runtime, name).toHaveProperty(name);
    }
    expect(Object.keys(runtime.SUBSTRATE_FACTORIES)).toContain('scripted');
  });
});
