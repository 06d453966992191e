/** The documentation pages shipped in the package (`docs/*.md`), for `firstlight help TOPIC`. */
import { readdirSync, readFileSync } from 'node:fs';
import { NotFoundError, packagePath } from '../../core/index.js';

/** The topics: the doc files' names without `.md`, sorted. */
export function docTopics(): string[] {
  try {
    return readdirSync(packagePath('docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => name.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/** One page's markdown, ending with a newline. */
export function readDoc(topic: string): string {
  try {
    const text = readFileSync(packagePath('docs', `${topic}.md`), 'utf8');
    return text.endsWith('\n') ? text : `${text}\n`;
  } catch {
    throw new NotFoundError(
      `the documentation page ${topic} is not in this installation (${packagePath('docs')})`,
      'reinstall firstlight from a tarball packed with its docs/ (npm pack includes them)',
    );
  }
}
