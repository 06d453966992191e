import type { Prompt, ResourceTemplateSpec, Tool } from '../core/index.js';
import { guidancePrompts, guidanceResources, guidanceTools } from '../guidance/index.js';
import { internalizeTool } from '../resume/index.js';
import { cognitionTools } from './cognition/index.js';
import { guidanceOf } from './create-mind.js';
import { memoryTools } from './memory/index.js';
import type { Mind } from './mind.js';
import { type ConnectionInfo, mindTools } from './tools.js';

/**
 * Everything the `firstlight` MCP server exposes, in one list: the mind's tools and those of the
 * parts that contribute to it. The server registers exactly these, and `available_mind_tools`
 * is read back from that registration; `packet` and the SessionStart hook use its names
 * (MIND_SERVER_TOOL_NAMES, which a test holds equal to it).
 */
export function mindServerTools(mind: Mind, connection: ConnectionInfo): Tool[] {
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
export function mindServerPrompts(mind: Mind): Prompt[] {
  return [...guidancePrompts(guidanceOf(mind))];
}
