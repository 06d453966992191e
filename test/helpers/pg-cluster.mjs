// A throwaway Postgres cluster for tests and benches: initdb in a temp directory, the server run
// as a non-root user (Postgres refuses root; as root we use the system user `firstlight-pg`,
// created when missing), listening on loopback on a free port, fsync off. Stop and start again
// on the same directory and port to play an outage. Absent Postgres: `findPostgres()` says why.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PG_USER = 'firstlight-pg';

/** The directory holding initdb and postgres, or `{ skip }` with the reason there is none. */
export function findPostgres() {
  // Plays a machine without Postgres (to check that what needs it skips cleanly).
  if (process.env.FIRSTLIGHT_TEST_NO_POSTGRES)
    return { skip: 'FIRSTLIGHT_TEST_NO_POSTGRES is set (Postgres taken as absent)' };
  const dirs = [];
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) dirs.push(dir);
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) dirs.push(`/usr/lib/postgresql/${v}/bin`);
  }
  for (const dir of dirs) {
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))) return { bin: dir };
  }
  return {
    skip: 'Postgres is not installed (no initdb and postgres on PATH or in /usr/lib/postgresql/*/bin); apt-get install postgresql',
  };
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function owner() {
  if (process.getuid?.() !== 0) return {};
  try {
    await run('id', ['-u', PG_USER]);
  } catch {
    await run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER]);
  }
  const uid = Number((await run('id', ['-u', PG_USER])).stdout.trim());
  const gid = Number((await run('id', ['-g', PG_USER])).stdout.trim());
  return { uid, gid };
}

/**
 * Starts a cluster; resolves `{ url, port, dir, stop(), start(), destroy() }`. `stop` is a fast
 * shutdown (SIGINT); `start` brings it back on the same port.
 */
export async function startCluster(options = {}) {
  const found = findPostgres();
  if (found.skip) throw new Error(found.skip);
  const ids = await owner();
  const dir = mkdtempSync(join(tmpdir(), 'firstlight-pg-'));
  chmodSync(dir, 0o755);
  if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, 'data');
  const spawnOptions = { ...ids, cwd: dir, env: { ...process.env, LC_ALL: 'C' } };
  await new Promise((resolve, reject) => {
    const child = spawn(
      join(found.bin, 'initdb'),
      ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'],
      { ...spawnOptions, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed: ${err}`))));
  });
  const port = options.port ?? (await freePort());
  let server;
  const start = () =>
    new Promise((resolve, reject) => {
      const child = spawn(
        join(found.bin, 'postgres'),
        [
          '-D',
          data,
          '-k',
          dir,
          '-p',
          String(port),
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
          '-c',
          `max_connections=${options.maxConnections ?? 200}`,
        ],
        { ...spawnOptions, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let log = '';
      const onData = (d) => {
        log += d;
        if (log.includes('ready to accept connections')) {
          child.stderr.off('data', onData);
          child.stderr.resume();
          resolve();
        }
      };
      child.stderr.on('data', onData);
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`postgres exited (${code}) before it was ready: ${log}`)));
      server = child;
    });
  const stop = () =>
    new Promise((resolve) => {
      const child = server;
      if (!child || child.exitCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.on('exit', () => resolve());
      child.kill('SIGINT');
    });
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stop,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
