/**
 * The project of the persona runtime's commands (invoke, journal): `--project`, else the one found
 * from here; none (the home then holds the ledger) when nothing marks one.
 */
/** `--project`, else the project found from the current directory; none when only the start directory. */
export async function projectFor(flag: string | undefined, home: string): Promise<string | undefined> {
  const { resolve } = await import('node:path');
  if (flag) return resolve(flag);
  const { findProject } = await import('../../guidance/index.js');
  const found = findProject(process.cwd(), { home });
  return found.found === 'start' ? undefined : found.dir;
}
