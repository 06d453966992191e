/** @module runtime — the persona runtime: invoke() a persona in a role on a substrate. */
export type * from './substrates/types.js';
