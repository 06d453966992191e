/**
 * Where a server that runs code (`repl serve --http`, `runtime serve`) keeps the token it
 * generated at start, for its clients on this machine to find, as Jupyter keeps its runtime
 * files: one file per server, `<home>/run/<kind>-<port>.json` (`{kind, url, bind, token, pid,
 * started}`, mode 0600) in a directory only the user may enter (0700). Read here with node's
 * own modules only: the client library (`firstlight/client`) reads it too and loads nothing else.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerTokenRecord {
  readonly kind: 'repl' | 'runtime';
  /** The URL the server printed. */
  readonly url: string;
  /** The address it is bound to (a wildcard bind answers on every name). */
  readonly bind: string;
  readonly token: string;
  readonly pid: number;
  readonly started: string;
}

/** The directory of a home's server token files. */
export function serverTokenDir(home: string): string {
  return join(home, 'run');
}

/** The file a server on `port` of `kind` keeps its token in. */
export function serverTokenFile(home: string, kind: ServerTokenRecord['kind'], port: number): string {
  return join(serverTokenDir(home), `${kind}-${port}.json`);
}

/**
 * The token of the live server of this home that answers at `url`, or undefined: same port, and
 * the same host (every loopback name is one; a wildcard bind answers on any). A file whose
 * process is gone is stale and skipped; so is one another user could have written.
 */
export function findServerToken(home: string, url: string): string | undefined {
  let wanted: URL;
  try {
    wanted = new URL(url);
  } catch {
    return undefined;
  }
  const dir = serverTokenDir(home);
  if (!ownedPrivateDir(dir)) return undefined;
  const port = wanted.port || (wanted.protocol === 'https:' ? '443' : '80');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(`-${port}.json`));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const record = readRecord(join(dir, name));
    if (!record || !alive(record.pid)) continue;
    if (sameHost(record, wanted.hostname)) return record.token;
  }
  return undefined;
}

function readRecord(file: string): ServerTokenRecord | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || (stat.mode & 0o077) !== 0 || !ownedByMe(stat.uid)) return undefined;
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerTokenRecord>;
    if (typeof value.token !== 'string' || typeof value.url !== 'string' || typeof value.pid !== 'number')
      return undefined;
    return value as ServerTokenRecord;
  } catch {
    return undefined;
  }
}

function ownedPrivateDir(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && (stat.mode & 0o077) === 0 && ownedByMe(stat.uid);
  } catch {
    return false;
  }
}

function ownedByMe(uid: number): boolean {
  return typeof process.getuid !== 'function' || process.getuid() === uid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

function loopbackName(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function sameHost(record: ServerTokenRecord, hostname: string): boolean {
  const bind = record.bind.toLowerCase();
  const host = hostname.toLowerCase();
  if (bind === '0.0.0.0' || bind === '::' || bind === '[::]') return true;
  if (loopbackName(bind) && loopbackName(host)) return true;
  const recorded = URL.canParse(record.url) ? new URL(record.url).hostname.toLowerCase() : '';
  return host === bind || host === recorded;
}
