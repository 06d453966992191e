// The npm registry this project installs from lacks some platform builds of optional packages
// (e.g. @biomejs/cli-darwin-arm64@2.6.8). `npm install` then leaves them out of the lock file and
// `npm ci` refuses the lock ("Missing: … from lock file"). This adds an entry for each missing
// optional platform package, with its os/cpu/libc, so `npm ci` sees a complete lock and skips
// the ones that do not match this machine (they are never fetched here).
// Run after any `npm install` that changes the lock: `node scripts/complete-lock.mjs`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;

function platformOf(name) {
  try {
    const out = execFileSync('npm', ['view', name, 'os', 'cpu', 'libc', '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const parsed = JSON.parse(out || '{}');
    return { os: parsed.os, cpu: parsed.cpu, libc: parsed.libc };
  } catch {
    return inferPlatform(name);
  }
}

function inferPlatform(name) {
  const os = [
    'android',
    'darwin',
    'freebsd',
    'openbsd',
    'linux',
    'win32',
    'openharmony',
    'sunos',
    'aix',
    'netbsd',
  ].find((o) => name.includes(`-${o}-`));
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 's390x', 'riscv64', 'mips64el'].find((c) =>
    name.includes(`-${c}`),
  );
  const libc = name.includes('musl') ? ['musl'] : os === 'linux' ? ['glibc'] : undefined;
  return { os: os ? [os] : undefined, cpu: cpu ? [cpu] : undefined, libc };
}

for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const nested = `${base}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && !cpu) continue; // not a platform package: leave it to npm
    packages[hoisted] = {
      version: version.replace(/^[\^~=]/, ''),
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os } : {}),
      ...(cpu ? { cpu } : {}),
      ...(libc ? { libc } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: added ${added} optional platform entries`);
