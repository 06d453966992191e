import type { Command } from 'commander';
import { UserError } from '../core/index.js';

/** The options of a command that can serve streamable HTTP (`--http` and its companions). */
export interface HttpFlags {
  http?: boolean;
  host: string;
  port: string;
  allowedHost: string[];
  sessionIdle: string;
}

/** Checked HTTP settings from the flags. */
export interface HttpSettings {
  host: string;
  port: number;
  allowedHosts: string[];
  sessionIdleMs: number;
  token: string | undefined;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds `--http`, `--host`, `--port`, `--allowed-host`, `--session-idle` to `command`. */
export function addHttpOptions(command: Command, defaultPort: string): Command {
  return command
    .option('--http', 'serve streamable HTTP instead of stdio')
    .option(
      '--host <address>',
      'HTTP bind address; anything but loopback requires FIRSTLIGHT_TOKEN',
      '127.0.0.1',
    )
    .option('--port <port>', 'HTTP port (0: any free port)', defaultPort)
    .option(
      '--allowed-host <name>',
      'also accept this Host header name (a DNS name, or name:port behind a proxy); repeatable',
      collect,
      [],
    )
    .option(
      '--session-idle <seconds>',
      'HTTP: close a session after this long without a request (clients re-initialize)',
      '28800',
    );
}

/** Validates the HTTP flags (bad values are usage errors) and reads FIRSTLIGHT_TOKEN. */
export function httpSettings(options: HttpFlags): HttpSettings {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UserError(`--port must be an integer 0-65535, not "${options.port}"`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass a port such as 7821 (or 0 for any free port)',
    });
  }
  for (const name of options.allowedHost) {
    if (!/^[^\s/@?#]+$/.test(name)) {
      throw new UserError(`--allowed-host must be a host name, not "${name}"`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass the name clients put in the Host header, e.g. --allowed-host firstlight.example.com (no scheme, no path)',
      });
    }
  }
  const sessionIdle = Number(options.sessionIdle);
  if (!Number.isFinite(sessionIdle) || sessionIdle <= 0) {
    throw new UserError(`--session-idle must be a positive number of seconds, not "${options.sessionIdle}"`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --session-idle 28800 (8 hours, the default)',
    });
  }
  return {
    host: options.host,
    port,
    allowedHosts: options.allowedHost,
    sessionIdleMs: sessionIdle * 1000,
    token: process.env.FIRSTLIGHT_TOKEN || undefined,
  };
}
