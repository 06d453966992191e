import { SystemError } from '../../core/index.js';
import { type CognitionEvent, readRecentEvents as readTail } from '../observation/index.js';

export type { CognitionEvent } from '../observation/index.js';
export { appendEvent, eventFileFor } from '../observation/index.js';

/**
 * The events at the end of a day file, newest last; torn or foreign lines are skipped. A file
 * that does not exist holds no events; one that cannot be read (EACCES, …) is an error naming it.
 */
export function readRecentEvents(file: string, maxBytes?: number): CognitionEvent[] {
  try {
    return readTail(file, maxBytes);
  } catch (error) {
    throw new SystemError(`could not read cognition events from ${file}: ${(error as Error).message}`, {
      code: 'EVENTS_UNREADABLE',
      hint: `make ${file} readable by this user (or move it out of events/)`,
      cause: error,
    });
  }
}
