/**
 * Logging goes to stderr only: stdout of a stdio server is the protocol.
 * Level from FIRSTLIGHT_LOG (error|warn|info|debug), default warn.
 */

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** A logger writing `firstlight[scope] level: message` lines to stderr. */
export function createLogger(scope: string, level: LogLevel = envLevel()): Logger {
  const write = (at: LogLevel, message: string) => {
    if (ORDER[at] <= ORDER[level]) process.stderr.write(`firstlight[${scope}] ${at}: ${message}\n`);
  };
  return {
    error: (m) => write('error', m),
    warn: (m) => write('warn', m),
    info: (m) => write('info', m),
    debug: (m) => write('debug', m),
  };
}

/** A logger that drops everything; for tests and quiet library use. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function envLevel(): LogLevel {
  const raw = process.env.FIRSTLIGHT_LOG;
  return raw === 'error' || raw === 'warn' || raw === 'info' || raw === 'debug' ? raw : 'warn';
}
