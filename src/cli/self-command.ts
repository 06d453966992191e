/**
 * How a person runs this CLI from where they are: `firstlight` when that name on PATH is this
 * very CLI (installed), else `node <path to dist/cli/main.js>` (relative to the cwd inside it,
 * as in a checkout after `npm start`). Banners print it, so a "Try it" line runs as written
 * (issue 38).
 */

import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The entry that starts this CLI: dist/cli/main.js (from a command's module or the bundle's chunks/). */
export function cliEntry(moduleUrl: string): string {
  return fileURLToPath(new URL('../main.js', moduleUrl));
}

export async function selfCommand(cliPath: string): Promise<string> {
  const { resolveCommands, shellQuote } = await import('../host/index.js');
  const { server } = resolveCommands({ cliPath, execPath: process.execPath, env: process.env });
  if (server.command === 'firstlight') return 'firstlight';
  const near = relative(process.cwd(), cliPath);
  return `node ${shellQuote(near.startsWith('..') || isAbsolute(near) ? cliPath : near)}`;
}
