/** Readers for the loosely typed JSON the model APIs and agent CLIs send: a wrong type reads as empty. */
export type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
