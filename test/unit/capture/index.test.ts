import { describe, expect, it } from 'vitest';
import * as capture from '../../../src/capture/index.js';

describe('capture (public face)', () => {
  it('exports the capture functions and the curator contract, nothing else', () => {
    expect(Object.keys(capture).sort()).toEqual([
      'CURATOR_SYSTEM',
      'SAME_FACT',
      'acceptProposed',
      'captureSession',
      'captureSettingsFor',
      'captureStatus',
      'commandOf',
      'curatorAnswerSchema',
      'findDigest',
      'findFixes',
      'findInstructions',
      'forbiddenGlobs',
      'listProposed',
      'logFile',
      'parseCuratorAnswer',
      'pick',
      'queueCapture',
      'queuedJobs',
      'readConversation',
      'readReports',
      'rejectProposed',
      'runQueue',
      'stageOne',
      'tokensOn',
      'usageFile',
    ]);
  });
});
