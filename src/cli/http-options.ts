/**
 * `--http` and its companions, declared on `serve` and `repl serve`. Light: read while the
 * program is built; the checks (http-settings.ts) load with the action.
 */
import type { Command } from 'commander';
import { collect, numberOption } from './help-text.js';

/** The options of a command that can serve streamable HTTP (`--http` and its companions). */
export interface HttpFlags {
  http?: boolean;
  host: string;
  port: string | number;
  allowedHost: string[];
  sessionIdle: string | number;
}

/** Checked HTTP settings from the flags. */
export interface HttpSettings {
  host: string;
  port: number;
  allowedHosts: string[];
  sessionIdleMs: number;
  token: string | undefined;
}

/** Adds `--http`, `--host`, `--port`, `--allowed-host`, `--session-idle` to `command`. */
export function addHttpOptions(command: Command, defaultPort: number): Command {
  return command
    .option('--http', 'serve streamable HTTP instead of stdio')
    .option(
      '--host <address>',
      'HTTP bind address; anything but loopback requires FIRSTLIGHT_TOKEN',
      '127.0.0.1',
    )
    .addOption(numberOption('--port <port>', 'HTTP port (0: any free port)', defaultPort))
    .option(
      '--allowed-host <name>',
      'also accept this Host header name (a DNS name, or name:port behind a proxy); repeatable',
      collect,
      [],
    )
    .addOption(
      numberOption(
        '--session-idle <seconds>',
        'HTTP: close a session after this long without a request (clients re-initialize)',
        28_800,
      ),
    );
}
