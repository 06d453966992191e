// Empties dist/ before tsc: tsc never deletes the output of a source file that was moved or
// removed, and a stale module would still load (and ship in the package).
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
