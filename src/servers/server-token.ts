/**
 * The token of a server that runs code (`repl serve --http`, `runtime serve`): one is generated
 * at start unless the operator gives one (FIRSTLIGHT_TOKEN) or opts out on loopback
 * (`--no-token`), and it is kept in the home's `run/` for this user's clients to find
 * (core's server-tokens.ts reads it).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import {
  type ServerTokenRecord,
  SystemError,
  serverTokenDir,
  serverTokenFile,
  UserError,
  writeFileAtomicallySync,
} from '../core/index.js';
import { isLoopback } from './http-guard.js';

/**
 * The token a code-running server requires: FIRSTLIGHT_TOKEN when set, none with `--no-token`
 * (loopback only), else a fresh one.
 */
export function codeServerToken(options: { host: string; noToken: boolean; envToken: string | undefined }): {
  token: string | undefined;
  generated: boolean;
} {
  if (options.noToken) {
    if (options.envToken) {
      throw new UserError(
        '--no-token and FIRSTLIGHT_TOKEN disagree: one asks for no token, the other sets one',
        {
          code: 'TOKEN_CONFLICT',
          hint: 'unset FIRSTLIGHT_TOKEN to serve without a token, or drop --no-token',
        },
      );
    }
    if (!isLoopback(options.host)) {
      throw new UserError(
        `--no-token is refused on ${options.host}: only loopback may serve without a token`,
        {
          code: 'TOKEN_REQUIRED',
          hint: 'drop --no-token (a token is generated and printed), or bind --host 127.0.0.1',
        },
      );
    }
    return { token: undefined, generated: false };
  }
  if (options.envToken) return { token: options.envToken, generated: false };
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

/**
 * Writes the server's token file (0600, atomically, in a 0700 directory of the home) and
 * returns its path and the removal to run at shutdown (only while the file is still this one's).
 */
export function keepServerToken(
  home: string,
  record: Omit<ServerTokenRecord, 'pid' | 'started'> & { port: number },
): { file: string; remove: () => void } {
  const dir = serverTokenDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) {
    throw new SystemError(`${dir} is not a directory: the server's token cannot be kept there`, {
      code: 'TOKEN_DIR_INVALID',
      hint: `remove ${dir} (a directory of server tokens; it is made again)`,
    });
  }
  // Made before this user's umask or by an older build: only the user may enter it.
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const file = serverTokenFile(home, record.kind, record.port);
  const { port: _, ...rest } = record;
  const text = `${JSON.stringify({ ...rest, pid: process.pid, started: new Date().toISOString() }, null, 2)}\n`;
  writeFileAtomicallySync(file, text, { mode: 0o600 });
  return {
    file,
    remove: () => {
      try {
        const kept = JSON.parse(readFileSync(file, 'utf8')) as { pid?: number };
        if (kept.pid === process.pid) rmSync(file, { force: true });
      } catch {
        // Gone already, or another server's now: nothing of ours to remove.
      }
    },
  };
}
