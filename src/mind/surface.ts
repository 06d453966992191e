import type { PromptSpec, ResourceTemplateSpec, ToolSpec } from '../core/index.js';
import {
  createGuidance,
  type Guidance,
  guidancePrompts,
  guidanceResources,
  guidanceTools,
} from '../guidance/index.js';
import { internalizeTool, loadResumption } from '../resume/index.js';
import { cognitionTools } from './cognition/index.js';
import { memoryTools } from './memory/index.js';
import { Mind, type MindOptions } from './mind.js';
import { type ConnectionInfo, mindTools } from './tools.js';

/**
 * Everything the `firstlight` MCP server exposes, in one list: the mind's tools and those of the
 * parts that contribute to it. The server registers exactly these, and `available_mind_tools`
 * is read back from that registration; `packet` and the SessionStart hook use the same list.
 */
export function mindServerTools(mind: Mind, connection: ConnectionInfo): ToolSpec[] {
  return [
    ...mindTools(mind, connection),
    ...memoryTools(mind),
    ...cognitionTools(mind, connection),
    internalizeTool({ home: mind.home, clock: mind.clock, sessionKey: connection.sessionKey }),
    ...guidanceTools(guidanceOf(mind)),
  ];
}

/** The resources of the `firstlight` server (guidance docs). */
export function mindServerResources(mind: Mind): ResourceTemplateSpec[] {
  return [...guidanceResources(guidanceOf(mind))];
}

/** The prompts of the `firstlight` server (`yiasou`, alias `hi`). */
export function mindServerPrompts(mind: Mind): PromptSpec[] {
  return [...guidancePrompts(guidanceOf(mind))];
}

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
  let names: string[] | undefined;
  mind.setToolNames(() => {
    names ??= mindServerTools(mind, { sessionKey: 'preview' }).map((t) => t.name);
    return names;
  });
  return mind;
}
