// Regenerates the host-format table in docs/hosts.md from the adapter registry (dist/; build first).
// test/unit/host/docs-table.test.ts fails when the doc drifts from the registry.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderHostFormatTable } from '../dist/host/index.js';

const file = new URL('../docs/hosts.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const next = doc.replace(
  /(<!-- host-table:begin[^>]*-->\n)[\s\S]*?(\n<!-- host-table:end -->)/,
  (_m, begin, end) => `${begin}${renderHostFormatTable()}${end}`,
);
writeFileSync(file, next);
process.stdout.write(next === doc ? 'docs/hosts.md is current\n' : 'docs/hosts.md table regenerated\n');
