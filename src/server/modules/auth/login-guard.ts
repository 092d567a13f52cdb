import { isIPv6 } from 'node:net';
import { AppError } from '@/server/lib/errors.js';
import type { RateLimitStore, RateLimits } from '@/server/lib/rate-limit.js';
import { sha256Hex } from '@/server/lib/sha256.js';

export interface LoginGuardDeps {
  rateLimitStore: RateLimitStore;
  rateLimits: RateLimits;
  now(): number;
}

/** What becomes of an admitted attempt, once its password has been checked. */
export interface AdmittedLogin {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

const tooMany = (retryAt: number, now: number) =>
  new AppError('RATE_LIMITED', 'Too many failed sign-in attempts. Try again later.', {
    retryAfter: Math.max(1, Math.ceil((retryAt - now) / 1000)),
  });

/**
 * Admits a sign-in attempt for `email` from `address`, or refuses it (429 RATE_LIMITED with
 * Retry-After) before its password is checked. Wrong passwords slow down the address that sends
 * them, never the account as such (OWASP: throttle per account and address; back off per account
 * without a hard lock), so nobody can lock the owner out by knowing their email:
 *
 * - per address, a budget of failed logins whatever the account (`failedLoginsPerAddress`): an
 *   address trying many accounts is refused for all of them until its window ends;
 * - per account and address, an exponential backoff (`loginBackoff`): after a few failures from
 *   that address for that account, its next attempts wait a growing delay; a success forgets them;
 * - per account, a soft backoff (`accountBackoff`): when the account has many recent failures, from
 *   anywhere, an address that has already failed for it waits between attempts too (guessing from
 *   many addresses), while an address that has not — the owner's, elsewhere — waits for nothing.
 *
 * Each attempt counts before the password is checked (one atomic step per counter), so parallel
 * guesses cannot all slip under a limit; a success gives the address's count back. Unknown emails
 * are counted alike, so a refusal says nothing about whether an account exists.
 */
export async function admitLogin(
  deps: LoginGuardDeps,
  email: string,
  address: string,
): Promise<AdmittedLogin> {
  const { rateLimitStore: store, rateLimits: limits } = deps;
  const now = deps.now();
  const from = guardedAddress(address);
  // Emails stay out of the store's keys.
  const account = sha256Hex(email);
  const addressKey = `login-fail:address:${from}`;
  const accountKey = `login-fail:account:${account}`;
  const pairKey = `login-fail:pair:${account}:${from}`;

  const byAddress = await store.hit(addressKey, limits.failedLoginsPerAddress.windowMs, now);
  if (byAddress.count > limits.failedLoginsPerAddress.max) throw tooMany(byAddress.resetAt, now);
  const giveBack = () => store.hit(addressKey, limits.failedLoginsPerAddress.windowMs, deps.now(), -1);

  const recent = await store.hit(accountKey, limits.accountBackoff.windowMs, now, 0);
  const pair = await store.attempt(pairKey, now, limits.loginBackoff, accountGap(recent.count, limits));
  if (!pair.allowed) {
    await giveBack(); // not checked, so not a failed login of the address's
    throw tooMany(pair.retryAt, now);
  }
  return {
    async succeeded() {
      await Promise.all([store.reset(pairKey), giveBack()]);
    },
    async failed() {
      await store.hit(accountKey, limits.accountBackoff.windowMs, deps.now());
    },
  };
}

/** The least wait between attempts, per `accountBackoff`, for an account with `failures` recent ones. */
export function accountGap(failures: number, limits: Pick<RateLimits, 'accountBackoff'>): number {
  const { after, baseMs, maxMs } = limits.accountBackoff;
  if (failures < after) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.floor((failures - after) / after), 40));
}

/**
 * What the guard counts an address as: an IPv4 address (an IPv4-mapped IPv6 one included) as
 * itself, an IPv6 address as its /64, since one client commonly holds a whole /64 and could
 * otherwise start afresh from each of its addresses.
 */
export function guardedAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return mapped;
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
