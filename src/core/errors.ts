/**
 * The error hierarchy. Every error carries a stable `code`, a `hint` that names the field and
 * the fix, and a native `cause`. Callers branch on the class or the code, never on message text.
 */

export interface FirstlightErrorOptions {
  /** Stable machine-readable code, e.g. `CONFIG_INVALID`. */
  code: string;
  /** How to fix it, naming the field or file involved. */
  hint?: string;
  cause?: unknown;
}

/** Base of every error firstlight throws on purpose. */
export abstract class FirstlightError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  /** Process exit code when this error reaches the CLI edge. */
  abstract readonly exitCode: number;

  constructor(message: string, options: FirstlightErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.hint = options.hint;
  }

  /** One or two lines for a human: the message, then the fix. */
  render(): string {
    return this.hint ? `${this.message}\n  fix: ${this.hint}` : this.message;
  }

  /** The MCP tool-result form: the model reads it and can recover. */
  toToolResult(): { content: { type: 'text'; text: string }[]; isError: true } {
    return { content: [{ type: 'text', text: `${this.code}: ${this.render()}` }], isError: true };
  }
}

/** Bad input or configuration from the caller: exit 2. */
export class UserError extends FirstlightError {
  readonly exitCode = 2;
}

/** Our fault or the environment's (a file we could not write, a process that died): exit 1. */
export class SystemError extends FirstlightError {
  readonly exitCode = 1;
}

/** A settings or data file that does not parse or validate. */
export class ConfigError extends UserError {
  readonly file: string;
  readonly field: string | undefined;
  constructor(message: string, options: FirstlightErrorOptions & { file: string; field?: string }) {
    super(message, options);
    this.file = options.file;
    this.field = options.field;
  }
}

/** A path argument that tries to leave the directory it is confined to. */
export class PathEscapeError extends UserError {
  readonly requested: string;
  constructor(requested: string, root: string, why: string) {
    super(`refused path "${requested}": ${why}`, {
      code: 'PATH_ESCAPE',
      hint: `give a name inside ${root} (relative, no "..", no symlink leading out)`,
    });
    this.requested = requested;
  }
}

/** Something that should exist does not. */
export class NotFoundError extends UserError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'NOT_FOUND', hint });
  }
}

/** True for our own errors; lets edges decide how to render anything thrown. */
export function isFirstlightError(value: unknown): value is FirstlightError {
  return value instanceof FirstlightError;
}

/** Wraps an unknown thrown value as a SystemError, keeping it as the cause. */
export function asFirstlightError(value: unknown): FirstlightError {
  if (isFirstlightError(value)) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new SystemError(message, { code: 'INTERNAL', cause: value });
}
