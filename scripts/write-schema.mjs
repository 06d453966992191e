// Regenerates schema/bootstrap-session.v1.json from the zod packet schema (run after `npm run build`).
// test/unit/mind/packet-schema.test.ts fails when the committed file drifts from the code.
import { writeFileSync } from 'node:fs';
import { packetJsonSchema } from '../dist/mind/index.js';

const target = new URL('../schema/bootstrap-session.v1.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(packetJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
