/** The persona runtime: invoke() a persona in a role on a substrate. */

export { claudeArgs, claudeToolName } from './substrates/claude-cli.js';
export { codexArgs } from './substrates/codex-cli.js';
export type { RealSubstrateKind, SubstrateContext } from './substrates/create.js';
export {
  createSubstrate,
  isRealSubstrateKind,
  parseSubstrateSpec,
  REAL_SUBSTRATE_KINDS,
} from './substrates/create.js';
export { geminiArgs, geminiPolicy, geminiToolName } from './substrates/gemini-cli.js';
export type * from './substrates/types.js';
