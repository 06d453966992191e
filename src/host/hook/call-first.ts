import { SERVER_NAME } from './own-tools.js';

/** What the agent must do before a gated tool, with the tool named as this host shows it to the model. */
export const callFirst = (toolPrefix: string): string =>
  `Call bootstrap_session() on the ${SERVER_NAME} MCP server first (${toolPrefix}bootstrap_session); retry this tool once it returns mind_contract_available: true.`;
