// The packaged CLI, tested from the tarball and not the work tree: `npm pack`, then
// `npm install -g` of that tarball into a temporary prefix with a temporary HOME, and from there
// `firstlight --version`, `init`, the runtime's first run (`runtime demo`, a bundled session),
// `install claude` (in a fresh git project) and `doctor`.
// Run by .ci/run after the build (`npm run test:pack`); prints each step and fails on the first
// that does not do what it should.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'firstlight-pack-')));
const started = Date.now();
const step = (text) =>
  process.stdout.write(`pack-check: ${text} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);

function fail(message, result) {
  process.stderr.write(`pack-check FAILED: ${message}\n`);
  if (result) process.stderr.write(`--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}\n`);
  process.exitCode = 1;
  throw new Error(message);
}

try {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) fail('dist/ is not built: run npm run build first');
  // --ignore-scripts: dist/ is already built; prepare would build it again.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  const tarball = join(work, packed[0].filename);
  step(
    `packed ${packed[0].filename}: ${packed[0].entryCount} files, ${(packed[0].size / 1024).toFixed(0)} KB`,
  );

  const prefix = join(work, 'prefix');
  const home = join(work, 'home');
  const project = join(work, 'project', 'app');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, '.git'));
  mkdirSync(home);
  // A clean user: an empty HOME, the prefix first on PATH, no firstlight variables; the network
  // settings (proxy, CA certificates) and npm's cache and config stay as they are.
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !k.startsWith('FIRSTLIGHT_') && !/^npm_(config|package|lifecycle)_/.test(k),
      ),
    ),
    PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    HOME: home,
    npm_config_cache: join(process.env.HOME ?? home, '.npm'),
    npm_config_userconfig: join(process.env.HOME ?? home, '.npmrc'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, tarball], {
    cwd: work,
    env,
    encoding: 'utf8',
  });
  if (install.status !== 0) fail('npm install -g of the tarball failed', install);
  const bin = join(prefix, 'bin', 'firstlight');
  if (!existsSync(bin)) fail(`no ${bin} after the install`, install);
  if (realpathSync(bin).startsWith(root)) fail(`${bin} points into the work tree`);
  step(`installed into ${prefix}`);

  const firstlight = (args, cwd = work) => {
    const r = spawnSync('firstlight', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
    return r;
  };
  const version = firstlight(['--version']);
  const expected = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  if (version.status !== 0 || version.stdout.trim() !== expected)
    fail(`firstlight --version printed "${version.stdout.trim()}", not ${expected}`, version);
  step(`firstlight --version: ${expected}`);

  const init = firstlight(['init', '--name', 'Packcheck', '--user', 'a CI run', '--json']);
  if (init.status !== 0) fail('firstlight init failed', init);
  const persona = readFileSync(join(home, '.firstlight', 'persona', 'agent_system.md'), 'utf8');
  if (!persona.includes('You are Packcheck')) fail('init did not write the persona it was given');
  step('firstlight init: ~/.firstlight with persona Packcheck');

  // The runtime's first run from the package: the personas init copied, the bundled sessions.
  const demo = firstlight(['runtime', 'demo']);
  if (demo.status !== 0 || !demo.stdout.includes('The journal, as a story:'))
    fail('firstlight runtime demo failed', demo);
  const explorer = firstlight([
    'invoke',
    '--persona',
    'explorer',
    '--surface',
    'synthesis-ledger',
    '--engagement',
    'agent',
    '--task',
    'look around',
    '--substrate',
    'scripted:explorer',
    '--print-handoff-id',
  ]);
  if (explorer.status !== 0 || !/^synthesis-[0-9a-f]+$/.test(explorer.stdout.trim()))
    fail('firstlight invoke of the bundled explorer session failed', explorer);
  step(`firstlight runtime demo, and invoke --persona explorer: ${explorer.stdout.trim()}`);

  const installClaude = firstlight(['install', 'claude'], join(project, 'src'));
  if (installClaude.status !== 0) fail('firstlight install claude failed', installClaude);
  const mcp = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
  const server = mcp.mcpServers.firstlight;
  // The installed package is on PATH: hosts start it by name, not through the work tree.
  if (server.command !== 'firstlight')
    fail(`.mcp.json starts "${server.command}", not the installed firstlight`);
  step('firstlight install claude (from src/): written at the project root, command "firstlight"');

  const doctor = firstlight(['doctor', '--json'], join(project, 'src'));
  const report = JSON.parse(doctor.stdout || '{}');
  if (doctor.status !== 0 || report.ok !== true || report.project !== project)
    fail('firstlight doctor did not pass', doctor);
  step(`firstlight doctor: ${report.hosts.map((h) => `${h.host} ok`).join(', ')}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
