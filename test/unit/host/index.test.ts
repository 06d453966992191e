import { describe, expect, it } from 'vitest';
import * as host from '../../../src/host/index.js';

describe('host public face', () => {
  it('exports the registry, install, doctor and the renderers', () => {
    for (const name of [
      'HOST_ADAPTERS',
      'HOST_IDS',
      'HOOK_EVENTS',
      'install',
      'uninstall',
      'doctor',
      'probeServer',
      'renderHostFormatTable',
      'upsertBlock',
    ]) {
      expect(host, name).toHaveProperty(name);
    }
  });

  it('exports the hook runner and its emitter for the CLI fast path', () => {
    for (const name of ['runHook', 'detectHost', 'emitHookOutput', 'emitHookCrash'])
      expect(host, name).toHaveProperty(name);
  });
});
