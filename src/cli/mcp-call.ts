/**
 * `firstlight call`: a small MCP client. Over stdio it starts our own server (`serve` for the
 * mind's tools, `repl serve` for the REPL's) the way a host would, or it connects to a running
 * one over streamable HTTP; then it calls one tool (or lists them) and closes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type FirstlightError, findServerToken, resolveHome, SystemError, UserError } from '../core/index.js';
import { REPL_TOOL_NAMES } from '../repl/index.js';
import { keyValue } from './io.js';
import { progressLine } from './progress.js';
import { closest, didYouMean } from './suggest.js';

export type ServerKind = 'mind' | 'repl';

export interface CallRequest {
  /** The tool; absent lists the tools. */
  tool?: string;
  args: Record<string, unknown>;
  /** Connect to this streamable-HTTP endpoint instead of starting a server. */
  http?: string;
  /** Which of our servers to start over stdio (ignored with `http`). */
  server: ServerKind;
  /** The CLI entry that starts our servers (`dist/cli/main.js`). */
  cliPath: string;
  home?: string;
  timeoutMs: number;
}

export interface ToolListing {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
}

export type CallAnswer =
  | { kind: 'list'; server: string; tools: ToolListing[] }
  | {
      kind: 'result';
      server: string;
      tool: string;
      isError: boolean;
      texts: string[];
      structured: unknown;
    };

/** The server a tool lives on when none is named: the REPL's eight, else the mind. */
export function serverFor(tool: string | undefined): ServerKind {
  return tool !== undefined && (REPL_TOOL_NAMES as readonly string[]).includes(tool) ? 'repl' : 'mind';
}

/**
 * `--arg k=v` values: JSON when they look like JSON (numbers, true/false/null, quoted strings,
 * arrays, objects), else the text itself. `a.b=1` nests: `{a: {b: 1}}`.
 */
export function parseArgs(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const [key, value] = keyValue(
      pair,
      '--arg',
      'query=deploy (values that look like JSON are parsed: --arg k=5, --arg tags=\'["a"]\')',
    );
    const path = key.split('.');
    let node = out;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      node[key] = next && typeof next === 'object' && !Array.isArray(next) ? next : {};
      node = node[key] as Record<string, unknown>;
    }
    node[path.at(-1)!] = jsonish(value);
  }
  return out;
}

function jsonish(text: string): unknown {
  const t = text.trim();
  if (/^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/.test(t) || /^["[{]/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

/** Connects, calls (or lists), closes. A tool that answers `isError` is an answer, not a throw. */
export async function mcpCall(request: CallRequest): Promise<CallAnswer> {
  const { transport, label, stderr } = openTransport(request);
  const client = new Client({ name: 'firstlight-call', version: '1' });
  try {
    try {
      await client.connect(transport, { timeout: request.timeoutMs });
    } catch (error) {
      if (request.http) {
        const answered = httpAnswerError(label, error);
        if (answered) throw answered;
      }
      throw new SystemError(`could not reach ${label}: ${(error as Error).message}${tailOf(stderr())}`, {
        code: 'SERVER_UNREACHABLE',
        hint: request.http
          ? 'check the URL (the server prints it) and its token: FIRSTLIGHT_TOKEN, else the one the server generated, found in <home>/run/ (pass the --home the server was started with)'
          : 'run firstlight doctor; FIRSTLIGHT_LOG=debug shows what the server logs',
        cause: error,
      });
    }
    const tools: ToolListing[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: request.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    if (request.tool === undefined) return { kind: 'list', server: label, tools };
    const tool = request.tool;
    if (!tools.some((t) => t.name === tool)) {
      const names = tools.map((t) => t.name);
      const close = didYouMean(closest(tool, names));
      throw new UserError(`${label} has no tool "${tool}"${close ? ` ${close}` : ''}`, {
        code: 'UNKNOWN_TOOL',
        hint: `its tools: ${names.join(', ')}${request.http ? '' : " (the REPL's with --server repl)"}`,
      });
    }
    const progress = progressLine(process.stderr, { label: tool });
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name: tool, arguments: request.args }, undefined, {
        timeout: request.timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (p) => progress.update(p.progress, p.total, p.message),
      });
    } catch (error) {
      throw new SystemError(`${tool} failed: ${(error as Error).message}${tailOf(stderr())}`, {
        code: 'CALL_FAILED',
        hint: `check the arguments against the tool's schema: firstlight call --server ${serverFor(tool)} (lists the tools)`,
        cause: error,
      });
    } finally {
      progress.stop();
    }
    const content = Array.isArray(result.content) ? result.content : [];
    const texts = content.map((c) =>
      c.type === 'text' ? String(c.text) : `[${c.type}${'mimeType' in c ? ` ${String(c.mimeType)}` : ''}]`,
    );
    return {
      kind: 'result',
      server: label,
      tool,
      isError: result.isError === true,
      texts,
      structured: result.structuredContent ?? undefined,
    };
  } finally {
    await client.close().catch(() => {});
  }
}

function openTransport(request: CallRequest): { transport: Transport; label: string; stderr: () => string } {
  if (request.http) {
    let url: URL;
    try {
      url = new URL(request.http);
    } catch {
      throw new UserError(`--http "${request.http}" is not a URL`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass the MCP endpoint firstlight serve --http prints, e.g. --http http://127.0.0.1:7821/mcp',
      });
    }
    // The token the server at this URL keeps in this home's run/ (it generated it, or took
    // FIRSTLIGHT_TOKEN), else FIRSTLIGHT_TOKEN (a server of another home or machine).
    const token =
      findServerToken(request.home ?? resolveHome().dir, url.href) ??
      (process.env.FIRSTLIGHT_TOKEN || undefined);
    return {
      transport: new StreamableHTTPClientTransport(url, {
        ...(token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
      }),
      label: url.href,
      stderr: () => '',
    };
  }
  const args = [
    request.cliPath,
    ...(request.server === 'repl' ? ['repl', 'serve'] : ['serve']),
    ...(request.home ? ['--home', request.home] : []),
  ];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: process.env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  return {
    transport,
    label:
      request.server === 'repl' ? 'the REPL server (firstlight repl serve)' : 'the mind (firstlight serve)',
    stderr: () => stderr,
  };
}

/**
 * A server that answered the connect with an HTTP error was reached: say what it answered and
 * what to fix (the path, the token), not "could not reach" (issue 38). Undefined for a network
 * failure (refused, no such host, timeout).
 */
function httpAnswerError(href: string, error: unknown): FirstlightError | undefined {
  if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code <= 0)
    return undefined;
  const url = new URL(href);
  const endpoint = `${url.origin}/mcp`;
  if (error.code === 404) {
    return new UserError(`${href} answered 404: there is no MCP endpoint at ${url.pathname}`, {
      code: 'NOT_AN_MCP_ENDPOINT',
      hint:
        url.pathname === '/mcp'
          ? 'pass the MCP endpoint the server printed when it started (firstlight serve --http prints "MCP endpoint: …")'
          : `our servers answer at /mcp: --http ${endpoint} (the server prints its "MCP endpoint: …" when it starts)`,
      cause: error,
    });
  }
  if (error.code === 401 || error.code === 403) {
    return new UserError(`${href} refused the call (HTTP ${error.code}): no token, or not its token`, {
      code: 'UNAUTHORIZED',
      hint: 'pass the --home the server was started with (its token is kept in <home>/run/), or set FIRSTLIGHT_TOKEN to the token it printed',
      cause: error,
    });
  }
  return new SystemError(`${href} answered HTTP ${error.code}: ${error.message}`, {
    code: 'SERVER_ERROR',
    hint: 'check the URL the server printed when it started and what the server logs (FIRSTLIGHT_LOG=debug)',
    cause: error,
  });
}

function tailOf(stderr: string): string {
  const tail = stderr.trim().split('\n').slice(-5).join('\n');
  return tail ? `; the server said:\n${tail}` : '';
}

/**
 * A tool's error text as the CLI's error: our servers answer `CODE: message` and a `fix:` line
 * (FirstlightError.toToolResult); other servers' text becomes the message.
 */
export function toolFailure(tool: string, text: string): { code: string; message: string; fix?: string } {
  const [head = '', ...fixLines] = text.split(/\n\s*fix: /);
  const coded = /^([A-Z][A-Z0-9_]+): ([\s\S]*)$/.exec(head.trim());
  const fix = fixLines.join(' ').trim();
  return {
    code: coded?.[1] ?? 'TOOL_ERROR',
    message: `${tool}: ${(coded?.[2] ?? head).trim()}`,
    ...(fix ? { fix } : {}),
  };
}
