import { createGuidance, type Guidance } from '../guidance/index.js';
import { loadResumption } from '../resume/index.js';
import { Mind, type MindOptions } from './mind.js';

/**
 * The names of the tools mindServerTools (surface.ts) registers on the `firstlight` server, in
 * its order: what a packet built outside a server lists as `available_mind_tools`. Written out so
 * the SessionStart hook does not load every tool's module and schema to learn them; a test
 * holds it equal to mindServerTools.
 */
export const MIND_SERVER_TOOL_NAMES: readonly string[] = [
  'bootstrap_session',
  'get_system_prompt',
  'context',
  'list_memory_files',
  'read_memory_file',
  'remember',
  'recall',
  'observe',
  'reflect',
  'internalize',
  'get_taskspace',
  'update_taskspace',
  'expand_reference',
];

// One Guidance per Mind: both serve the same home and project for the life of the process.
const guidanceByMind = new WeakMap<Mind, Guidance>();

/** The guidance part (docs, taskspace store, boot prompt) for a mind's home and project. */
export function guidanceOf(mind: Mind): Guidance {
  let guidance = guidanceByMind.get(mind);
  if (!guidance) {
    guidance = createGuidance({
      home: mind.home,
      projectDir: mind.projectDir,
      log: mind.log,
      clock: mind.clock,
    });
    guidanceByMind.set(mind, guidance);
  }
  return guidance;
}

/** A Mind wired with the packet sections of the other parts. */
export function createMind(options: MindOptions): Mind {
  const mind = new Mind(options);
  const guidance = guidanceOf(mind);
  mind.setSections({
    resumption: ({ sessionId, consume }) =>
      loadResumption({
        home: mind.home,
        sessionId,
        consume,
        now: mind.clock(),
        policy: mind.settings().settings.resumption,
      }),
    guidance: () => guidance.guidanceSection(),
    taskspace: () => guidance.taskspaceSection(),
  });
  mind.setToolNames(() => [...MIND_SERVER_TOOL_NAMES]);
  return mind;
}
