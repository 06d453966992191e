import { describe, expect, it } from 'vitest';
import * as guidance from '../../../src/guidance/index.js';

describe('guidance public surface', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(guidance).sort()).toEqual(
      [
        'BOOT_PROMPT_ALIASES',
        'BOOT_PROMPT_NAME',
        'GUIDANCE_MIME_TYPE',
        'GUIDANCE_NAME',
        'GUIDANCE_URI_PREFIX',
        'Guidance',
        'HOSTS_READING_RESOURCES',
        'findDoc',
        'yiasouModeFor',
        'MAX_GUIDANCE_BYTES',
        'PROJECT_ID_FILE',
        'PROJECT_STATE_DIR',
        'projectIdentity',
        'TASKSPACE_LIMITS',
        'assembleBootPrompt',
        'createGuidance',
        'embeddedGuidanceDir',
        'findProject',
        'guidancePrompts',
        'guidanceResources',
        'guidanceTools',
        'loadGuidance',
        'projectAt',
        'listTaskspaces',
        'newTaskspace',
        'readTaskspace',
        'switchTaskspace',
        'writeTaskspace',
      ].sort(),
    );
  });
});
