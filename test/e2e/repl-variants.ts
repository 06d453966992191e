/**
 * The REPL e2e suites run on every kernel and transport: the stdlib kernel and a Jupyter
 * (IPython) kernel, each over stdio and over streamable HTTP. A Jupyter variant needs
 * jupyter_client and ipykernel; where they are missing it is skipped, and the reason printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI, REPO_ROOT, run, type Wired, wireHttp, wireStdio } from '../helpers/index.js';

export type KernelKind = 'stdlib' | 'jupyter';
export type Transport = 'stdio' | 'http';

export interface ReplVariant {
  kernel: KernelKind;
  transport: Transport;
  /** For test titles: "stdlib kernel over stdio". */
  label: string;
}

/** Where the Jupyter kernel's modules are, as `firstlight repl serve --kernel jupyter` finds them. */
async function jupyterPython(): Promise<string | undefined> {
  for (const python of ['python3', '/usr/bin/python3']) {
    const probe = await run(python, ['-c', 'import jupyter_client, ipykernel']);
    if (probe.status === 0) return python;
  }
  return undefined;
}

export const JUPYTER_PYTHON = await jupyterPython();

if (!JUPYTER_PYTHON) {
  process.stderr.write(
    'REPL e2e: the Jupyter kernel variants are SKIPPED: no python3 here imports jupyter_client and ipykernel ' +
      '(apt-get install python3-ipykernel python3-jupyter-client)\n',
  );
}

/**
 * `REPL_VARIANTS=stdlib/stdio,jupyter/http` runs only those (a quicker local loop); unset, all.
 */
const ONLY = process.env.REPL_VARIANTS?.split(',').map((v) => v.trim());

/** Every kernel and transport (the Jupyter ones only where ipykernel is installed). */
export const VARIANTS: ReplVariant[] = (['stdlib', 'jupyter'] as const)
  .filter((kernel) => kernel === 'stdlib' || JUPYTER_PYTHON !== undefined)
  .flatMap((kernel) =>
    (['stdio', 'http'] as const).map((transport) => ({
      kernel,
      transport,
      label: `${kernel} kernel over ${transport}`,
    })),
  )
  .filter((v) => !ONLY || ONLY.includes(`${v.kernel}/${v.transport}`));

/** The `repl serve` arguments of a variant (without the transport's own). */
export function serveArgs(variant: ReplVariant, args: string[]): string[] {
  return ['repl', 'serve', '--kernel', variant.kernel, ...args];
}

/**
 * `firstlight repl serve ARGS` in the variant's kernel, connected to a real SDK Client over the
 * variant's transport. Over HTTP the server is a child process on a free loopback port, called with
 * the token it generated (or `headers`); close()
 * closes the client, then stops the server with SIGTERM (it saves first) and waits for its exit.
 */
export async function wireRepl(
  variant: ReplVariant,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Wired> {
  if (variant.transport === 'stdio') return wireStdio(serveArgs(variant, args), options);
  const child = spawn(process.execPath, [CLI, ...serveArgs(variant, ['--http', '--port', '0', ...args])], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`repl serve --http did not start: ${stderr}`)), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = /MCP endpoint: (\S+)/.exec(stdout);
      if (match && stdout.includes('Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`repl serve --http exited ${code}: ${stderr}`));
    });
  });
  let wired: Wired;
  try {
    // The token the server generated (it prints it), unless the test sends its own headers.
    const token = /^ {2}Token: (\S+)$/m.exec(stdout)?.[1];
    wired = await wireHttp(url, options.headers ?? (token ? { Authorization: `Bearer ${token}` } : {}));
  } catch (error) {
    await stop(child);
    throw error;
  }
  const close = async () => {
    await wired.close();
    await stop(child);
  };
  return { client: wired.client, close, stderr: () => stderr, [Symbol.asyncDispose]: close };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The parent pid of `pid`, from /proc. */
export function parentOf(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * How a variant names cell N in a traceback: `<cell-N>` in the stdlib kernel, `Cell In [N]`
 * (or `In[N]`) in IPython.
 */
export function cellName(variant: ReplVariant, n: number): RegExp {
  return variant.kernel === 'stdlib' ? new RegExp(`<cell-${n}>`) : new RegExp(`In ?\\[${n}\\]`);
}

/**
 * Options of every suite that runs per variant: a Jupyter kernel starts a second interpreter
 * and imports IPython, which on a loaded machine takes many seconds per harness start.
 */
export const SUITE = { timeout: 120_000 };
