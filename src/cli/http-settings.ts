import { UserError } from '../core/index.js';
import type { HttpFlags, HttpSettings } from './http-options.js';

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
