import type { ToolSpec } from '../core/index.js';
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
  ];
}

/** A Mind wired with the packet sections of the other parts. */
export function createMind(options: MindOptions): Mind {
  const mind = new Mind(options);
  mind.setSections({
    resumption: ({ sessionId, consume }) =>
      loadResumption({
        home: mind.home,
        sessionId,
        consume,
        now: mind.clock(),
        policy: mind.settings().settings.resumption,
      }),
  });
  let names: string[] | undefined;
  mind.setToolNames(() => {
    names ??= mindServerTools(mind, { sessionKey: 'preview' }).map((t) => t.name);
    return names;
  });
  return mind;
}
