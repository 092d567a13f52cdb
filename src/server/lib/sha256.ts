import crypto, { createHash } from 'node:crypto';

/**
 * SHA-256 of a string, in hex: how session and agent-token secrets are stored and looked up, on
 * every authenticated request. `crypto.hash` (Node ≥ 20.12) costs about half of a Hash object's
 * create, update and digest; older Node gets the Hash object.
 */
export const sha256Hex: (value: string) => string =
  typeof crypto.hash === 'function'
    ? (value) => crypto.hash('sha256', value, 'hex')
    : (value) => createHash('sha256').update(value).digest('hex');
