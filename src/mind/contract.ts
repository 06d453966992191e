import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { readConfined, UnsafeFileError } from '../core/index.js';

/** The assembled mind contract, or the fail-loud text that replaces it. */
export interface MindContract {
  /** The contract text, or `ERROR: firstlight mind contract failed to assemble: …`. */
  text: string;
  available: boolean;
  /** The cause, when unavailable (the same words the text carries). */
  error?: string;
  /** Files read, relative to persona/, in include order. */
  files: string[];
}

export const CONTRACT_ERROR_PREFIX = 'ERROR: firstlight mind contract failed to assemble:';

const INCLUDE = /^[ \t]*@include[ \t]+(.+?)[ \t]*$/;

class AssemblyError extends Error {}

/**
 * Assembles `persona/agent_system.md`, replacing each `@include path.md` line with that file,
 * recursively. Paths resolve relative to the including file and must stay inside persona/
 * (after resolving symlinks). A cycle, a missing file or an escape fails the whole contract:
 * a partial persona is worse than an honest "degraded".
 */
export function assembleContract(personaDir: string, rootFile = 'agent_system.md'): MindContract {
  const files: string[] = [];
  try {
    let root: string;
    try {
      root = realpathSync(personaDir);
    } catch {
      throw new AssemblyError(`persona directory not found: ${personaDir}`);
    }
    const text = expand(root, join(root, rootFile), [], files);
    if (text.trim() === '') throw new AssemblyError(`${rootFile} is empty`);
    return { text, available: true, files };
  } catch (error) {
    const cause = error instanceof AssemblyError ? error.message : `unexpected: ${(error as Error).message}`;
    return { text: `${CONTRACT_ERROR_PREFIX} ${cause}`, available: false, error: cause, files };
  }
}

function expand(root: string, file: string, stack: string[], files: string[]): string {
  const shown = relative(root, file) || file;
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    const from = stack.length > 0 ? ` (included from ${relative(root, stack.at(-1)!)})` : '';
    throw new AssemblyError(`missing file persona/${shown}${from}`);
  }
  const rel = relative(root, real);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new AssemblyError(`persona/${shown} resolves outside persona/ (${real})`);
  }
  if (stack.includes(real)) {
    const chain = [...stack, real].map((p) => relative(root, p)).join(' -> ');
    throw new AssemblyError(`@include cycle: ${chain}`);
  }
  // Read through core's confinement rule at the moment of use: a file swapped for a link out
  // (or a FIFO) since the check above is refused, not read.
  let content: string;
  try {
    content = readConfined(rel, { root }) ?? '';
  } catch (error) {
    if (error instanceof UnsafeFileError)
      throw new AssemblyError(`persona/${shown} ${error.message.replace(/^refused [^:]*: /, 'is ')}`);
    if ((error as NodeJS.ErrnoException).code === 'EISDIR')
      throw new AssemblyError(`persona/${shown} is not a file`);
    throw error;
  }
  files.push(rel);
  const out: string[] = [];
  for (const line of content.split('\n')) {
    const match = INCLUDE.exec(line);
    if (!match) {
      out.push(line);
      continue;
    }
    const target = match[1]!.replace(/^["'`]|["'`]$/g, '');
    if (isAbsolute(target))
      throw new AssemblyError(`@include of an absolute path in persona/${rel}: ${target}`);
    const included = expand(root, resolve(dirname(real), target), [...stack, real], files);
    out.push(included.replace(/\n$/, ''));
  }
  return out.join('\n');
}
