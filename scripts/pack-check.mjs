// The packaged CLI, tested from the tarball and not the work tree: pack, then `npm install -g`
// of that tarball into a temporary prefix with a temporary HOME, and from there
// `firstlight --version`, `init`, the runtime's first run (`runtime demo`, a bundled session),
// `install claude` (in a fresh git project), `doctor`, `call bootstrap_session`, `help repl`
// (the docs ship in the package) and `ui` serving its views and the packaged assets.
//
//   node scripts/pack-check.mjs           packs this tree's dist/ as built (`npm run test:pack`)
//   node scripts/pack-check.mjs --fresh   a fresh machine: copies the tree's files (tracked and
//                                         new, not ignored) to a temp dir, then `npm ci` and
//                                         `npm pack` there (prepack builds, once)
//
// Every npm step's stderr is captured and must hold no warning (npm 11's "install scripts not yet
// covered by allowScripts", deprecations, engine mismatches); firstlight's own steps must print
// nothing on stderr. Run by .ci/run (--fresh); prints each step and fails on the first that does
// not do what it should.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const fresh = process.argv.includes('--fresh');
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

/** The lines of an npm step's stderr that warn (npm's own `npm warn …`, Node's warnings, deprecations). */
const warnings = (stderr) => stderr.split('\n').filter((line) => /\bwarn(ing)?\b|deprecat/i.test(line));

function quietly(what, result) {
  if (result.status !== 0) fail(`${what} failed`, result);
  const warned = warnings(result.stderr);
  if (warned.length > 0) fail(`${what} printed warnings:\n${warned.join('\n')}`, result);
}

// A clean user: an empty HOME, the prefix first on PATH, no firstlight variables; the network
// settings (proxy, CA certificates) and npm's cache and config stay as they are.
const prefix = join(work, 'prefix');
const home = join(work, 'home');
mkdirSync(home);
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
const npm = (args, cwd) =>
  spawnSync('npm', args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** This tree's files as a clone has them: tracked and new, nothing ignored (no dist/, no node_modules/). */
function copyTree(to) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(root, file), join(to, file));
  }
  return files.length;
}

/** `npm pack` into `work`; the tarball's path. */
function pack(cwd, extra) {
  const packed = npm(['pack', '--pack-destination', work, ...extra], cwd);
  if (fresh) quietly('npm pack', packed);
  else if (packed.status !== 0) fail('npm pack failed', packed);
  const builds = (packed.stdout.match(/^> firstlight@\S+ build$/gm) ?? []).length;
  if (fresh && builds !== 1) fail(`npm pack built ${builds} times (expected once, by prepack)`, packed);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tarball) fail('npm pack wrote no tarball', packed);
  return { tarball: join(work, tarball), builds };
}

try {
  let tarball;
  if (fresh) {
    const src = join(work, 'src');
    step(`copied ${copyTree(src)} files of this tree to ${src}`);
    quietly('npm ci', npm(['ci'], src));
    if (existsSync(join(src, 'dist'))) fail('npm ci built dist/: building is npm pack’s job (prepack)');
    step('npm ci: no warnings, nothing built');
    const packed = pack(src, []);
    tarball = packed.tarball;
    step(`npm pack: no warnings, built ${packed.builds} time(s)`);
  } else {
    if (!existsSync(join(root, 'dist', 'cli', 'main.js')))
      fail('dist/ is not built: run npm run build first');
    // --ignore-scripts: dist/ is already built; prepack would build it again.
    tarball = pack(root, ['--ignore-scripts']).tarball;
    step(`packed ${tarball}`);
  }

  const install = npm(['install', '-g', '--prefix', prefix, tarball], work);
  quietly('npm install -g of the tarball', install);
  const bin = join(prefix, 'bin', 'firstlight');
  if (!existsSync(bin)) fail(`no ${bin} after the install`, install);
  if (realpathSync(bin).startsWith(root)) fail(`${bin} points into the work tree`);
  step(`installed into ${prefix}: no warnings`);

  const project = join(work, 'project', 'app');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, '.git'));
  /** A firstlight step: exit 0 and nothing on stderr. */
  const firstlight = (args, cwd = work) => {
    const r = spawnSync('firstlight', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) fail(`firstlight ${args.join(' ')} exited ${r.status}`, r);
    if (r.stderr !== '') fail(`firstlight ${args.join(' ')} printed on stderr`, r);
    return r;
  };
  const version = firstlight(['--version']);
  const expected = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  if (version.stdout.trim() !== expected)
    fail(`firstlight --version printed "${version.stdout.trim()}", not ${expected}`, version);
  step(`firstlight --version: ${expected}`);

  firstlight(['init', '--name', 'Packcheck', '--user', 'a CI run', '--json']);
  const persona = readFileSync(join(home, '.firstlight', 'persona', 'agent_system.md'), 'utf8');
  if (!persona.includes('You are Packcheck')) fail('init did not write the persona it was given');
  step('firstlight init: ~/.firstlight with persona Packcheck');

  // The runtime's first run from the package: the personas init copied, the bundled sessions.
  const run = (args) => spawnSync('firstlight', args, { cwd: work, env, encoding: 'utf8', timeout: 120_000 });
  const demo = run(['runtime', 'demo']);
  if (demo.status !== 0 || !demo.stdout.includes('The journal, as a story:'))
    fail('firstlight runtime demo failed', demo);
  const explorer = run([
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

  firstlight(['install', 'claude'], join(project, 'src'));
  const mcp = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
  const server = mcp.mcpServers.firstlight;
  // The installed package is on PATH: hosts start it by name, not through the work tree.
  if (server.command !== 'firstlight')
    fail(`.mcp.json starts "${server.command}", not the installed firstlight`);
  step('firstlight install claude (from src/): written at the project root, command "firstlight"');

  const doctor = spawnSync('firstlight', ['doctor', '--json'], {
    cwd: join(project, 'src'),
    env,
    encoding: 'utf8',
  });
  const report = JSON.parse(doctor.stdout || '{}');
  if (doctor.status !== 0 || report.ok !== true || report.project !== project)
    fail('firstlight doctor did not pass', doctor);
  step(
    `firstlight doctor: ${report.hosts.map((h) => `${h.host} ${h.skipped ? 'skipped (not on this machine)' : 'ok'}`).join(', ')}`,
  );

  const call = firstlight(['call', 'bootstrap_session'], project);
  const packet = JSON.parse(call.stdout);
  if (packet.schema_version !== 1 || packet.mind_contract_available !== true)
    fail('firstlight call bootstrap_session did not answer the packet', call);
  step('firstlight call bootstrap_session: the packet, schema v1, contract available');

  const help = firstlight(['help', 'repl']);
  if (!help.stdout.startsWith(readFileSync(join(root, 'docs', 'repl.md'), 'utf8').slice(0, 200)))
    fail('firstlight help repl did not print docs/repl.md from the package', help);
  step('firstlight help repl: the docs ship in the package');

  // The page's stylesheet and script come from the package's assets/ui/, never a network.
  const ui = spawn('firstlight', ['ui', '--no-open', '--port', '0'], { cwd: project, env });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`firstlight ui did not start: ${out}`)), 60_000);
      ui.stdout.on('data', (chunk) => {
        out += chunk;
        const m = /firstlight ui: (http\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      ui.stderr.on('data', (chunk) => {
        out += chunk;
      });
      ui.once('exit', (code) => reject(new Error(`firstlight ui exited ${code}: ${out}`)));
    }).catch((error) => fail(error.message));
    for (const path of ['/wakeup', '/assets/ui.css', '/assets/ui.js', '/assets/keys.html']) {
      const response = await fetch(new URL(path, url));
      if (response.status !== 200) fail(`firstlight ui answered ${response.status} for ${path}`);
      await response.arrayBuffer();
    }
    step(`firstlight ui: ${url} serves the views and the packaged assets`);
  } finally {
    // Waited for: a server saves its caches into the home as it stops, and the clean-up below
    // would race it (ENOTEMPTY).
    if (ui.exitCode === null && ui.signalCode === null) {
      const exited = new Promise((resolve) => ui.once('exit', resolve));
      ui.kill('SIGTERM');
      await exited;
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
