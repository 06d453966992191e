import { createGuidance, type Guidance } from '../guidance/index.js';
import { loadResumption } from '../resume/index.js';
import { Mind, type MindOptions } from './mind.js';

/**
 * The names of the tools mindServerTools (surface.ts) registers on the `firstlight` server, in
 * its order: what every packet lists as `available_mind_tools`. Written out so the SessionStart
 * hook does not load every tool's module and schema to learn them; a test holds it equal to the
 * tools the composition root (createFirstlight) hands the server.
 */
export const MIND_SERVER_TOOL_NAMES: readonly string[] = [
  'bootstrap_session',
  'get_system_prompt',
  'context',
  'list_memory_files',
  'read_memory_file',
  'remember',
  'recall',
  'forget_memory',
  'restore_memory',
  'observe',
  'reflect',
  'internalize',
  'get_taskspace',
  'update_taskspace',
  'expand_reference',
];

export interface CreateMindOptions extends Omit<MindOptions, 'sections' | 'toolNames'> {
  /** The guidance part for the same home and project; built from the options when omitted. */
  guidance?: Guidance;
}

/**
 * A Mind built with the packet sections of the other parts (resumption, guidance, taskspace)
 * and the `firstlight` server's tool names, all at construction. The light root: the packet
 * alone (SessionStart, `packet`, bootstrapSession); servers compose more around it.
 */
export function createMind(options: CreateMindOptions): Mind {
  const { guidance: given, ...mindOptions } = options;
  const guidance =
    given ??
    createGuidance({
      home: options.home,
      projectDir: options.projectDir,
      log: options.log,
      clock: options.clock,
    });
  return new Mind({
    ...mindOptions,
    sections: {
      resumption: ({ sessionId, consume, now, settings }) =>
        loadResumption({ home: options.home, sessionId, consume, now, policy: settings.resumption }),
      guidance: () => guidance.guidanceSection(),
      taskspace: () => guidance.taskspaceSection(),
    },
    toolNames: MIND_SERVER_TOOL_NAMES,
  });
}
