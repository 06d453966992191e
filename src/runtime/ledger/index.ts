/**
 * @module runtime/ledger — the one interface behind which the runtime keeps its journal,
 * handoffs, session state, invocations and subscriptions, and its embedded implementation on
 * files. Nothing else in the runtime reads or writes those files.
 */

export type { FileLedgerOptions } from './file-ledger.js';
export { createFileLedger } from './file-ledger.js';
export { appendJournal, journalFile, readJournal } from './journal-files.js';
export { createMemoryLedger } from './memory-ledger.js';
export {
  exportLedger,
  importLedger,
  type OpenLedger,
  openLedger,
  openPgLedger,
  parseStore,
  STORE_HELP,
  type StoreSpec,
} from './open.js';
export { claimInvocation, expiredInvocations, finishInvocation, renewLease } from './pg-claims.js';
export type { PgLedger } from './pg-ledger.js';
export type { TransferCounts } from './pg-transfer.js';
export { handoffsDir, readHandoff, readSession, readStoredHandoff, writeHandoff } from './record-files.js';
export type {
  HandoffRow,
  HandoffRowMissing,
  InvocationRecord,
  InvocationState,
  Ledger,
  StreamRecord,
  SubscriptionCounts,
  SubscriptionRecord,
  SubscriptionState,
} from './types.js';
