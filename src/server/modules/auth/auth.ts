import { randomBytes, randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { LoginInput, RegisterInput } from '@/contracts/auth.js';
import type { Db } from '@/server/db/client.js';
import { isUniqueViolation } from '@/server/lib/db-errors.js';
import { AppError } from '@/server/lib/errors.js';
import { LruCache } from '@/server/lib/lru-cache.js';
import type { RateLimitStore, RateLimits } from '@/server/lib/rate-limit.js';
import { sha256Hex } from '@/server/lib/sha256.js';
import type { SseHub } from '../events/sse-hub.js';
import { createWithFirstProject, type ProjectsDeps } from '../projects/projects.js';
import { deleteSession, findSessionUser, findUserByEmail, insertSession, insertUser } from './auth.repo.js';
import { admitLogin } from './login-guard.js';

/** What sign-up, sign-in and sessions need from outside (registration creates the first project); `AppDeps` provides it. */
export interface AuthDeps extends ProjectsDeps {
  /**
   * How long a session found in the database is trusted before it is asked for again, in ms; null:
   * until its logout or its expiry (`credentialRecheckFor`).
   */
  credentialRecheckMs: number | null;
  rateLimitStore: RateLimitStore;
  rateLimits: RateLimits;
  /** Logout closes the session's open streams. */
  sseHub: Pick<SseHub, 'endSession'>;
}

/** The signed-in user a request carries (`c.var.user`). */
export interface SessionUser {
  id: string;
  email: string;
  createdAt: Date;
}

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** argon2id with the library's defaults (19 MiB, 2 passes), the OWASP baseline. */
const hashPassword = (password: string) => hash(password);

/** Verified when the email is unknown, so that an unknown email costs as long as a wrong password. */
let dummyHash: Promise<string> | undefined;

/** A session is stored under its token's hash, so the database never holds a usable cookie. */
const sessionIdOf = sha256Hex;

export interface IssuedSession {
  token: string;
  expiresAt: Date;
  user: SessionUser;
}

async function issueSession(deps: AuthDeps, user: SessionUser): Promise<IssuedSession> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(deps.now() + SESSION_TTL_MS);
  await insertSession(deps.db, { id: sessionIdOf(token), userId: user.id, expiresAt });
  return { token, expiresAt, user };
}

/** Creates the user and their default project (together or not at all), and signs them in. */
export async function register(deps: AuthDeps, input: RegisterInput): Promise<IssuedSession> {
  if (await findUserByEmail(deps.db, input.email)) throw emailTaken();
  const passwordHash = await hashPassword(input.password);
  const userId = randomUUID();
  let user: SessionUser;
  try {
    user = await createWithFirstProject(deps, (tx) =>
      insertUser(tx, { id: userId, email: input.email, passwordHash }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
  deps.logger.info('user registered', { userId: user.id });
  return issueSession(deps, { id: user.id, email: user.email, createdAt: user.createdAt });
}

const emailTaken = () => new AppError('EMAIL_TAKEN', 'An account with this email already exists');
const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Invalid email or password');

/**
 * Checks credentials sent from `address` (the client's, as the rate limits see it). Every failure
 * — unknown email, wrong password, malformed input — is the same 401; an attempt the login guard
 * refuses (`admitLogin`: too many failures from this address) is a 429 before any password is checked.
 */
export async function login(deps: AuthDeps, input: LoginInput, address: string): Promise<IssuedSession> {
  const attempt = await admitLogin(deps, input.email, address);
  const user = input.email ? await findUserByEmail(deps.db, input.email) : null;
  dummyHash ??= hashPassword(randomUUID());
  const ok = user
    ? await verify(user.passwordHash, input.password)
    : await verify(await dummyHash, input.password).then(() => false);
  if (!user || !ok) {
    await attempt.failed();
    throw invalidCredentials();
  }
  await attempt.succeeded();
  return issueSession(deps, { id: user.id, email: user.email, createdAt: user.createdAt });
}

/**
 * Sessions found in the database, per database: a board's burst of requests (list, revalidations,
 * cards' runs) asks the database once. Logout drops its entry at once; expiry is checked every time.
 *
 * How long an entry is trusted depends on who else can end a session (`credentialRecheckFor`). On
 * PostgreSQL, other AutoCoder processes may share the database, and a logout there deletes the row
 * without touching this process's entries: an entry is trusted for one second. PGlite is embedded in
 * this one process (nothing else opens its files while it runs), so a session there ends only by a
 * logout here, which drops the entry, or by its expiry: an entry is trusted until then, and a
 * signed-in user's requests (the pages the path proxy serves included) cost no lookup at all.
 *
 * With the second, a session in steady use is looked up again ahead of time: a request that finds
 * its entry older than 0.8 of it is answered from it at once and starts one lookup in the
 * background, at the end of its turn of the event loop, which renews the entry or drops it. So a
 * user clicking never waits on the database, about as many lookups are made as before (one per
 * 0.8 s instead of one per second), and a session removed in another process is still refused
 * within the second.
 */
const REFRESH_AHEAD_SHARE = 0.8;

interface RecentSession {
  user: SessionUser;
  expiresAt: number;
  foundAt: number;
  /** A background lookup of this entry is under way. */
  refreshing?: boolean;
}

const recentSessions = new WeakMap<Db, LruCache<string, RecentSession>>();

/** Keeps a session as the database just answered it, found at `foundAt`; its user. */
function remember(
  recent: LruCache<string, RecentSession>,
  sessionId: string,
  row: NonNullable<Awaited<ReturnType<typeof findSessionUser>>>,
  foundAt: number,
): SessionUser {
  const user: SessionUser = { id: row.id, email: row.email, createdAt: row.createdAt };
  recent.set(sessionId, { user, expiresAt: row.expiresAt.getTime(), foundAt });
  return user;
}

function recentSessionsOf(db: Db) {
  let cache = recentSessions.get(db);
  if (!cache) {
    cache = new LruCache(10_000);
    recentSessions.set(db, cache);
  }
  return cache;
}

/** Ends the session on the server: its cookie stops working and its event streams close at once. */
export async function logout(deps: AuthDeps, token: string): Promise<void> {
  const sessionId = sessionIdOf(token);
  recentSessionsOf(deps.db).delete(sessionId);
  await deleteSession(deps.db, sessionId);
  deps.sseHub.endSession(sessionId);
}

/**
 * Looks a recent session up again in the background. Its answer replaces the entry only while the
 * entry is still the one it renews: a logout (or a newer lookup) meanwhile wins, so a session
 * ended while the lookup was under way is not brought back by its answer.
 */
function refreshAhead(deps: AuthDeps, sessionId: string, entry: RecentSession) {
  entry.refreshing = true;
  // After the request that asked has been served: issuing the query is not its to pay for.
  setImmediate(() => lookUpAgain(deps, sessionId, entry));
}

function lookUpAgain(deps: AuthDeps, sessionId: string, entry: RecentSession) {
  const recent = recentSessionsOf(deps.db);
  if (recent.peek(sessionId) !== entry) return;
  const startedAt = deps.now();
  findSessionUser(deps.db, sessionId, new Date(startedAt)).then(
    (row) => {
      if (recent.peek(sessionId) !== entry) return;
      if (row) remember(recent, sessionId, row, startedAt);
      else recent.delete(sessionId);
    },
    // The entry stays as it was: at the second's end a request looks the session up itself.
    () => {
      entry.refreshing = false;
    },
  );
}

/** The user of a session found recently enough (and not expired), or undefined. */
function recentSession(deps: AuthDeps, sessionId: string): SessionUser | undefined {
  const now = deps.now();
  const known = recentSessionsOf(deps.db).get(sessionId);
  if (!known || now >= known.expiresAt || now < known.foundAt) return undefined;
  const recheck = deps.credentialRecheckMs;
  if (recheck === null) return known.user;
  const age = now - known.foundAt;
  if (age >= recheck) return undefined;
  if (age >= recheck * REFRESH_AHEAD_SHARE && !known.refreshing) refreshAhead(deps, sessionId, known);
  return known.user;
}

/**
 * The user of a session token as `resolveSession` answers it without asking the database, or
 * undefined when it must ask (unknown, or found longer ago than the recheck): for the service proxy,
 * which then answers without waiting on a promise.
 */
export function recentSessionUser(deps: AuthDeps, token: string): SessionUser | undefined {
  if (!token || token.length > 128) return undefined;
  return recentSession(deps, sessionIdOf(token));
}

/** The user a session token belongs to, or null when it is unknown or expired. */
export async function resolveSession(
  deps: AuthDeps,
  token: string,
): Promise<{ user: SessionUser; sessionId: string } | null> {
  if (!token || token.length > 128) return null;
  const sessionId = sessionIdOf(token);
  const known = recentSession(deps, sessionId);
  if (known) return { user: known, sessionId };
  const now = deps.now();
  const recent = recentSessionsOf(deps.db);
  const row = await findSessionUser(deps.db, sessionId, new Date(now));
  if (!row) {
    recent.delete(sessionId);
    return null;
  }
  return { user: remember(recent, sessionId, row, now), sessionId };
}
