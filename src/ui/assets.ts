/**
 * The page's stylesheet, script and static pages, shipped in the package (`assets/ui/`), read
 * once at start and served from memory with an ETag: no CDN, no build step, works offline.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packagePath } from '../core/index.js';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export function loadAssets(dir = packagePath('assets', 'ui')): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    out.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` });
  }
  return out;
}
