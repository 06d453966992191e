import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/index.js';

const SRC = join(REPO_ROOT, 'src');
/** Which folders each folder may import: data flows one way. */
const ALLOWED: Record<string, string[]> = {
  core: [],
  mind: ['core', 'resume', 'guidance'],
  resume: ['core'],
  guidance: ['core'],
  host: ['core', 'mind', 'resume'],
  hub: ['core'],
  repl: ['core', 'hub'],
  runtime: ['core', 'hub', 'mind'],
  servers: ['core', 'mind', 'resume', 'guidance', 'hub', 'repl', 'runtime'],
  cli: ['core', 'mind', 'resume', 'guidance', 'host', 'hub', 'repl', 'runtime', 'servers'],
};

/**
 * Second, light faces: a sub-folder's index.ts that the named folders may import instead of the
 * folder's own index.ts. The hook gate runs on every tool call and must not load what
 * resume/index.ts or mind/index.ts do (zod, YAML and the file locks, through core), so it reads
 * transcripts through resume/transcripts/index.ts and the mind's bootstrap record through
 * mind/bootstrap-record/index.ts, and matches tool-name globs through core/glob/index.ts. The
 * tool hooks caution through mind/cautions/index.ts (PreToolUse) and observe through
 * mind/observation/index.ts (PostToolUse), which in turn take only
 * core's text analysis, globs and append-only log.
 */
const LIGHT_FACES: Record<string, string[]> = {
  [join('core', 'glob', 'index.js')]: ['host', 'mind'],
  [join('core', 'text', 'index.js')]: ['mind'],
  [join('core', 'append-log.js')]: ['mind'],
  [join('resume', 'transcripts', 'index.js')]: ['host'],
  [join('mind', 'bootstrap-record', 'index.js')]: ['host'],
  [join('mind', 'observation', 'index.js')]: ['host'],
  [join('mind', 'cautions', 'index.js')]: ['host'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('folder boundaries', () => {
  const files = sourceFiles(SRC);

  it('imports another folder only through its index.ts, and only along the allowed direction', () => {
    const violations: string[] = [];
    for (const file of files) {
      const folder = relative(SRC, file).split(sep)[0]!;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'|import\('(\.{1,2}\/[^']+)'\)/g)) {
        const spec = match[1] ?? match[2]!;
        const target = relative(SRC, join(file, '..', spec));
        const targetFolder = target.split(sep)[0]!;
        if (targetFolder === folder || target.startsWith('..')) continue;
        const where = `${relative(REPO_ROOT, file)} imports ${spec}`;
        const face = target === join(targetFolder, 'index.js') || LIGHT_FACES[target]?.includes(folder);
        if (!face) violations.push(`${where}: not the folder's index.ts`);
        if (ALLOWED[folder] && !ALLOWED[folder].includes(targetFolder))
          violations.push(`${where}: ${folder} may not import ${targetFolder}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('gives every folder a public index.ts with a @module doc block', () => {
    for (const folder of readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory())) {
      const text = readFileSync(join(SRC, folder, 'index.ts'), 'utf8');
      expect(text, folder).toContain('@module');
    }
  });

  it('never writes to stdout outside the CLI and the stdio transport (stdout is the protocol)', () => {
    const offenders = files.filter((file) => {
      const rel = relative(SRC, file);
      if (rel.startsWith(`cli${sep}`) || rel.startsWith(`host${sep}`)) return false; // cli prints; host has its own emit rule
      return /console\.log\(|process\.stdout\.write\(/.test(readFileSync(file, 'utf8'));
    });
    expect(offenders.map((f) => relative(REPO_ROOT, f))).toEqual([]);
  });
});
