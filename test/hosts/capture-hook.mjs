#!/usr/bin/env node
// Records a hook's stdin payload, then runs the real hook command with it, passing its
// stdout, stderr and exit status through unchanged. Usage:
//   node capture-hook.mjs <dir> <command> [args...]
// Each call writes <dir>/<NNN>-<event>-<pid>.json (the event is the argument after the hook
// entry, `…/dist/cli/hook.cjs`, or after `hook` in an older `… main.js hook EVENT`).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, command, ...args] = process.argv.slice(2);
const input = readFileSync(0);
mkdirSync(dir, { recursive: true });
const entry = args.findIndex((a) => a === 'hook' || /[\\/]hook\.cjs$/.test(a));
const event = args[entry + 1] ?? 'unknown';
const n = readdirSync(dir).length.toString().padStart(3, '0');
const r = spawnSync(command, args, { input, maxBuffer: 64 * 1024 * 1024 });
writeFileSync(
  join(dir, `${n}-${event}-${process.pid}.json`),
  JSON.stringify(
    {
      argv: ['hook', ...args.slice(entry + 1)],
      stdin: input.toString('utf8'),
      stdout: r.stdout?.toString('utf8'),
      stderr: r.stderr?.toString('utf8'),
      status: r.status,
    },
    null,
    2,
  ),
);
process.stdout.write(r.stdout ?? '');
process.stderr.write(r.stderr ?? '');
process.exit(r.status ?? 1);
