import { describe, expect, it } from 'vitest';
import * as hook from '../../../src/host/hook.js';
import * as host from '../../../src/host/index.js';

describe('host public faces', () => {
  it('index exports the registry, install, doctor and renderers', () => {
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

  it('the hook face stays small: runner, emitter and ids only', () => {
    expect(Object.keys(hook).sort()).toEqual(
      [
        'HOOK_EVENTS',
        'HOST_IDS',
        'SCOPES',
        'detectHost',
        'emitHookCrash',
        'emitHookOutput',
        'isHookEvent',
        'isHostId',
        'runHook',
      ].sort(),
    );
  });
});
