import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * The SHA-256 of a string's UTF-8 bytes, in hex: the same digest as node:crypto's, without
 * loading node:crypto, which cost a hook process about 8 ms of its start (a tenth of `node -e 0`)
 * for a few hashes of short strings (a session id, a tool call's arguments).
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
