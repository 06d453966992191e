import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { confineFile } from './confine-light.js';
import { ensureDir } from './dirs.js';
import { readTextIfExists } from './files.js';

export { appendStateLine, confineFile, readStateTail, UnsafeFileError } from './confine-light.js';

/** {@link readTextIfExists} for a state file: confined first. */
export function readStateFile(file: string): string | undefined {
  confineFile(file);
  return readTextIfExists(file);
}

/** Writes a state file atomically (temp file, fsync, rename), confined first. */
export async function writeStateFile(file: string, content: string | Buffer): Promise<void> {
  ensureDir(dirname(file));
  confineFile(file);
  await writeFileAtomic(file, content, { fsync: true });
}

/** Synchronous twin of {@link writeStateFile}. */
export function writeStateFileSync(file: string, content: string | Buffer): void {
  ensureDir(dirname(file));
  confineFile(file);
  writeFileAtomic.sync(file, content, { fsync: true });
}
