import type { ServerResponse } from 'node:http';
import type * as z from 'zod';
import { ConfigError, isFirstlightError, NotFoundError, SystemError } from '../../core/index.js';

/**
 * Errors at the HTTP edge, converted once: every one is `{error: {code, message, fix}}` with
 * the status that says whose it is — 400 a request that does not validate (naming the field),
 * 401/403 the guard, 404 nothing by that id (or no such persona), 409 a subscription already
 * closed, 413 too large, 422 a request the runtime understood and refused (the refusal reason
 * as the code, or a profile that cannot load), 429 a full queue, 500 ours.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fix?: string,
    /** More of the body, beside `error` (a refused invocation's result). */
    readonly extra?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** A request that does not validate: 400 naming the first field that is wrong. */
export function invalidRequest(error: z.ZodError, where: string): ApiError {
  // A misspelt field explains the missing one it was meant to be: name it first.
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0]!;
  const path =
    issue.code === 'unrecognized_keys'
      ? [...issue.path, issue.keys[0] ?? ''].join('.')
      : issue.path.join('.');
  const message = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
  return new ApiError(
    400,
    'INVALID_REQUEST',
    `${where}${path ? `: ${path}` : ''}: ${message}`,
    `fix ${path ? `"${path}"` : 'the request'} (the schema: GET /v1/openapi.json)`,
  );
}

/** Any error as a status and a body. */
export function errorReply(error: unknown): { status: number; body: Record<string, unknown> } {
  const api =
    error instanceof ApiError
      ? error
      : isFirstlightError(error)
        ? new ApiError(statusOf(error), error.code, error.message, error.hint)
        : new ApiError(500, 'INTERNAL', 'internal error', 'see the service log');
  return {
    status: api.status,
    body: {
      error: { code: api.code, message: api.message, ...(api.fix ? { fix: api.fix } : {}) },
      ...api.extra,
    },
  };
}

function statusOf(error: Error): number {
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConfigError) return 422;
  if (error instanceof SystemError) return error.code === 'STORE_UNAVAILABLE' ? 503 : 500;
  return 400;
}

/** Writes a JSON reply. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Writes an error reply. */
export function sendError(res: ServerResponse, error: unknown): void {
  const { status, body } = errorReply(error);
  const headers: Record<string, string> = {};
  if (error instanceof ApiError && error.status === 429) headers['retry-after'] = '1';
  if (status === 503) headers['retry-after'] = '2';
  sendJson(res, status, body, headers);
}
