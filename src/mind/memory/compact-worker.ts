/**
 * A worker thread that compacts a recall index (compact.ts), so a server's event loop never
 * copies the whole index. Posts the number of entries the new log starts with, or an error.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compact, type IndexPaths } from './compact.js';

const paths: IndexPaths = workerData;
compact(paths).then(
  (entries) => parentPort?.postMessage({ entries }),
  (error: unknown) => parentPort?.postMessage({ error: String(error) }),
);
