/** One sentence per host on the PreToolUse gate, shared by the action block, doctor and the docs table. */
import { GATE_BYPASS_ENV } from './hook/gate-config.js';
import type { HostAdapter } from './types.js';

const TRANSCRIPT_NAME = {
  claude: "Claude Code's",
  codex: "Codex's rollout",
  gemini: "Gemini CLI's session",
} as const;

export function gateSummary(adapter: HostAdapter): { enforced: boolean; text: string } {
  const { gate } = adapter.caps;
  return 'transcript' in gate
    ? {
        enforced: true,
        text: `enforced: gated tools wait until ${TRANSCRIPT_NAME[gate.transcript]} transcript holds a successful bootstrap_session (bypass: ${GATE_BYPASS_ENV}=1 in the host's environment)`,
      }
    : {
        enforced: false,
        text: `not installed: ${gate.none}; the bootstrap rule and the SessionStart packet still apply`,
      };
}
