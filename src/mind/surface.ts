import type { Prompt, ResourceTemplateSpec, Tool } from '../core/index.js';
import { type Guidance, guidancePrompts, guidanceResources, guidanceTools } from '../guidance/index.js';
import { internalizeTool } from '../resume/index.js';
import { type Cognition, cognitionTools } from './cognition/index.js';
import { memoryTools, type RecallIndex } from './memory/index.js';
import type { Mind } from './mind.js';
import { type ConnectionInfo, mindTools } from './tools.js';

/**
 * The parts behind the `firstlight` MCP server, built once per process by the composition root
 * (createFirstlight in src/servers/). The recall index and the cognition pipeline are opened on
 * first use: a server that only hands out packets never loads the search engine.
 */
export interface MindServerParts {
  mind: Mind;
  guidance: Guidance;
  recall: () => RecallIndex;
  cognition: () => Cognition;
}

/**
 * Everything the `firstlight` MCP server exposes as tools, in one list: the mind's tools and
 * those of the parts that contribute to it, for one connection. Their names, in this order, are
 * MIND_SERVER_TOOL_NAMES (which a test holds equal to this list), what packets list as
 * `available_mind_tools`.
 */
export function mindServerTools(parts: MindServerParts, connection: ConnectionInfo): Tool[] {
  const { mind } = parts;
  return [
    ...mindTools(mind, connection),
    ...memoryTools({ mind, recall: parts.recall }),
    ...cognitionTools(parts.cognition, connection),
    internalizeTool({ home: mind.home, clock: mind.clock, sessionKey: connection.sessionKey }),
    ...guidanceTools(parts.guidance),
  ];
}

/** The resources of the `firstlight` server (guidance docs). */
export function mindServerResources(parts: MindServerParts): ResourceTemplateSpec[] {
  return [...guidanceResources(parts.guidance)];
}

/** The prompts of the `firstlight` server (`yiasou`, alias `hi`). */
export function mindServerPrompts(parts: MindServerParts): Prompt[] {
  return [...guidancePrompts(parts.guidance)];
}
