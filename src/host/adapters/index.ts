/**
 * @module host/adapters — the single registry of host adapters, one object per host, in
 * `HOST_IDS` order. Install, doctor, the hook runner and the docs table all read it.
 */
import type { HostId } from '../ids.js';
import type { HostAdapter } from '../types.js';
import { claudeAdapter } from './claude.js';
import { codexAdapter } from './codex.js';
import { copilotAdapter } from './copilot.js';
import { cursorAdapter } from './cursor.js';
import { geminiAdapter } from './gemini.js';
import { vscodeAdapter } from './vscode.js';

export const HOST_ADAPTERS: Readonly<Record<HostId, HostAdapter>> = {
  claude: claudeAdapter,
  copilot: copilotAdapter,
  vscode: vscodeAdapter,
  cursor: cursorAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
};

export function adapterFor(id: HostId): HostAdapter {
  return HOST_ADAPTERS[id];
}
