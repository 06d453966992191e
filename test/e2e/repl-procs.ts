/**
 * Processes seen through /proc, for the REPL e2e tests: only pids the test owns (children of a
 * harness it started), never a machine-wide search. PID 1 here does not reap orphans, so a
 * zombie counts as gone.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** State letter and parent pid from /proc/<pid>/stat, or undefined when there is no such process. */
function stat(pid: number): { state: string; ppid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: state as string, ppid: Number(ppid) };
}

/** True when the process no longer runs (absent, or a zombie). */
export function gone(pid: number): boolean {
  const s = stat(pid);
  return s === undefined || s.state === 'Z';
}

/** Live children of `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => {
      const s = stat(child);
      return s !== undefined && s.ppid === pid && s.state !== 'Z';
    });
}

/**
 * Waits until every pid is gone; returns those still running after `ms` (a deadline, not a
 * delay: a loaded machine reaps a killed process late, and the wait ends as soon as it is gone).
 */
export async function waitGone(pids: number[], ms = 15_000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = pids.filter((pid) => !gone(pid));
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the REPL harness's `execute` tool returns. */
export type { ExecutionResult as Exec } from '../../src/repl/index.js';
