import type { LockStatus } from '@/contracts/coordination.js';
import { RedisClient, type RespValue, redisScript } from '@/server/lib/redis.js';
import {
  type ExpiredLock,
  LOST_MEMORY_MS,
  type LockEntry,
  type LockScope,
  type LockStore,
  scopeKey,
  scopeOfKey,
} from './lock-store.js';

/*
 * Layout, per project and branch (one hash tag, so one slot in a cluster and one script may touch both):
 *   <prefix>{<project>:<branch>}:files  hash  path → JSON { holderId: lock }
 *   <prefix>{<project>:<branch>}:lost   hash  path \0 holderId → when that lock expired (ms)
 * and <prefix>scopes, a set of the scopes that ever held a lock, for the clean-up to visit.
 * Times come from the app's clock (ARGV), so expiry follows the same clock as everything else.
 */

/**
 * Lua helpers of ACQUIRE and RELEASE_UNLESS_TAKEN, over one file's decoded holders: `othersWriting`
 * appends the other holders' live WRITING locks on `path` to `into` (with their path and holder id);
 * `lostBy` says whether `holder` lost its lock on `path` to expiry (its own entry has expired, or the
 * clean-up remembers it in the lost hash).
 */
const HELPERS = `
local function othersWriting(holders, path, holder, now, into)
  for id, lock in pairs(holders) do
    if id ~= holder and lock.status == 'WRITING' and lock.expiresAt > now then
      lock.path = path
      lock.holderId = id
      table.insert(into, lock)
    end
  end
end
local function lostBy(holders, path, holder, now)
  local mine = holders[holder]
  if mine then return mine.expiresAt <= now end
  return redis.call('HEXISTS', KEYS[2], path .. '\\0' .. holder) == 1
end
`;

/**
 * All-or-nothing acquire. ARGV: holder id, holder name, status, message, agent head ('' for none),
 * now, ttl, then the paths. Returns {1} when taken, or {0, JSON of the live WRITING locks in the way,
 * the paths whose lock the holder lost to expiry}. Others' expired locks stay for the clean-up to report.
 */
const ACQUIRE = redisScript(`${HELPERS}
local holder, name, status, message, head = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local now, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
local states = {}
local conflicts = {}
for i = 8, #ARGV do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  local holders = raw and cjson.decode(raw) or {}
  states[i] = holders
  if status == 'WRITING' then othersWriting(holders, ARGV[i], holder, now, conflicts) end
end
if #conflicts > 0 then
  local lost = {}
  for i = 8, #ARGV do
    if lostBy(states[i], ARGV[i], holder, now) then table.insert(lost, ARGV[i]) end
  end
  return {0, cjson.encode(conflicts), lost}
end
for i = 8, #ARGV do
  local holders = states[i]
  holders[holder] = { name = name, status = status, message = message, agentHead = head,
    timestamp = now, expiresAt = now + ttl }
  redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(holders))
  redis.call('HDEL', KEYS[2], ARGV[i] .. '\\0' .. holder)
end
return {1}`);

/** The release loop of RELEASE and RELEASE_UNLESS_TAKEN: fills `released` with the paths held live. */
const RELEASE_LOOP = `
local released = {}
for i = 3, #ARGV do
  local path = ARGV[i]
  local raw = redis.call('HGET', KEYS[1], path)
  if raw then
    local holders = cjson.decode(raw)
    local mine = holders[holder]
    if mine then
      if mine.expiresAt > now then table.insert(released, path) end
      holders[holder] = nil
      if next(holders) == nil then redis.call('HDEL', KEYS[1], path)
      else redis.call('HSET', KEYS[1], path, cjson.encode(holders)) end
    end
  end
  redis.call('HDEL', KEYS[2], path .. '\\0' .. holder)
end
`;

/** ARGV: holder id, now, then the paths. Returns the paths the holder held (live). */
const RELEASE = redisScript(`
local holder, now = ARGV[1], tonumber(ARGV[2])
${RELEASE_LOOP}
return released`);

/**
 * ARGV as RELEASE. When the holder lost its lock on one of the paths to expiry (its own entry has
 * expired, or the clean-up remembers it in the lost hash) and another holder WRITES that file live,
 * changes nothing and returns {0, JSON of those locks}; else releases as RELEASE and returns {1, paths}.
 */
const RELEASE_UNLESS_TAKEN = redisScript(`${HELPERS}
local holder, now = ARGV[1], tonumber(ARGV[2])
local taken = {}
for i = 3, #ARGV do
  local path = ARGV[i]
  local raw = redis.call('HGET', KEYS[1], path)
  local holders = raw and cjson.decode(raw) or {}
  if lostBy(holders, path, holder, now) then othersWriting(holders, path, holder, now, taken) end
end
if #taken > 0 then return {0, cjson.encode(taken)} end
${RELEASE_LOOP}
return {1, released}`);

/** ARGV: now. Deletes the scope's expired locks; returns them as JSON (path, holderId and the lock). */
const SWEEP = redisScript(`
local now = tonumber(ARGV[1])
local expired = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local path = all[i]
  local holders = cjson.decode(all[i + 1])
  local count, pruned = 0, false
  for id, lock in pairs(holders) do
    if lock.expiresAt <= now then
      holders[id] = nil
      pruned = true
      lock.path = path
      lock.holderId = id
      table.insert(expired, lock)
      redis.call('HSET', KEYS[2], path .. '\\0' .. id, lock.expiresAt)
      redis.call('PEXPIRE', KEYS[2], ${LOST_MEMORY_MS})
    else
      count = count + 1
    end
  end
  if pruned then
    if count == 0 then redis.call('HDEL', KEYS[1], path)
    else redis.call('HSET', KEYS[1], path, cjson.encode(holders)) end
  end
end
if #expired == 0 then return '[]' end
return cjson.encode(expired)`);

interface StoredLock {
  name: string;
  status: LockStatus;
  message: string;
  agentHead: string;
  timestamp: number;
  expiresAt: number;
}

const toEntry = (path: string, holderId: string, lock: StoredLock): LockEntry => ({
  path,
  holder: { id: holderId, name: lock.name },
  status: lock.status,
  message: lock.message,
  agentHead: lock.agentHead || null,
  timestamp: lock.timestamp,
  expiresAt: lock.expiresAt,
});

const fromList = (json: string) =>
  (JSON.parse(json) as (StoredLock & { path: string; holderId: string })[]).map((lock) =>
    toEntry(lock.path, lock.holderId, lock),
  );

function entriesOf(path: string, raw: RespValue, now: number): LockEntry[] {
  if (typeof raw !== 'string') return [];
  const holders = JSON.parse(raw) as Record<string, StoredLock>;
  return Object.entries(holders)
    .filter(([, lock]) => lock.expiresAt > now)
    .map(([id, lock]) => toEntry(path, id, lock));
}

/**
 * The lock store shared by every server process, in Redis (REDIS_URL). Each write is one Lua script
 * over the scope's two keys, so a multi-file acquire is all-or-nothing under any concurrency.
 */
export function createRedisLockStore(url: string, prefix = 'autocoder:locks:'): LockStore {
  const client = new RedisClient(new URL(url));
  const keys = (scope: LockScope) => {
    const tag = `${prefix}{${scopeKey(scope)}}`;
    return [`${tag}:files`, `${tag}:lost`] as const;
  };
  const scopesKey = `${prefix}scopes`;

  return {
    async acquire(scope, request) {
      // Both leave in one write: the set of scopes is only read by the clean-up.
      const [, reply] = await Promise.all([
        client.command(['SADD', scopesKey, scopeKey(scope)]),
        client.eval(ACQUIRE, keys(scope), [
          request.holder.id,
          request.holder.name,
          request.status,
          request.message,
          request.agentHead ?? '',
          request.now,
          request.ttlMs,
          ...request.paths,
        ]),
      ]);
      if (!Array.isArray(reply)) throw new Error('Redis: unexpected reply to the acquire script');
      if (reply[0] === 1) return { ok: true };
      const lost = Array.isArray(reply[2]) ? [...new Set(reply[2].map(String))] : [];
      return { ok: false, conflicts: fromList(String(reply[1])), lost };
    },

    async release(scope, holderId, paths, now) {
      if (paths.length === 0) return [];
      const reply = await client.eval(RELEASE, keys(scope), [holderId, now, ...paths]);
      return Array.isArray(reply) ? reply.map(String) : [];
    },

    async releaseUnlessTaken(scope, holderId, paths, now) {
      if (paths.length === 0) return { ok: true, released: [] };
      const unique = [...new Set(paths)];
      const reply = await client.eval(RELEASE_UNLESS_TAKEN, keys(scope), [holderId, now, ...unique]);
      if (!Array.isArray(reply)) throw new Error('Redis: unexpected reply to the release script');
      if (reply[0] === 0) return { ok: false, taken: fromList(String(reply[1])) };
      return { ok: true, released: Array.isArray(reply[1]) ? reply[1].map(String) : [] };
    },

    async read(scope, paths, now) {
      if (paths.length === 0) return [];
      const reply = await client.command(['HMGET', keys(scope)[0], ...paths]);
      if (!Array.isArray(reply)) return [];
      return paths.flatMap((path, i) => entriesOf(path, reply[i] ?? null, now));
    },

    async list(scope, now) {
      const reply = await client.command(['HGETALL', keys(scope)[0]]);
      if (!Array.isArray(reply)) return [];
      const entries: LockEntry[] = [];
      for (let i = 0; i + 1 < reply.length; i += 2) {
        entries.push(...entriesOf(String(reply[i]), reply[i + 1] ?? null, now));
      }
      return entries;
    },

    async lost(scope, holderId, paths, now) {
      if (paths.length === 0) return [];
      const [files, lost] = keys(scope);
      const [stored, swept] = await Promise.all([
        client.command(['HMGET', files, ...paths]),
        client.command(['HMGET', lost, ...paths.map((p) => `${p}\0${holderId}`)]),
      ]);
      if (!Array.isArray(stored) || !Array.isArray(swept)) return [];
      return paths.filter((_, i) => {
        const raw = stored[i];
        const mine =
          typeof raw === 'string' ? (JSON.parse(raw) as Record<string, StoredLock>)[holderId] : undefined;
        return mine ? mine.expiresAt <= now : typeof swept[i] === 'string';
      });
    },

    async sweep(now) {
      const members = await client.command(['SMEMBERS', scopesKey]);
      if (!Array.isArray(members)) return [];
      const expired: ExpiredLock[] = [];
      for (const member of members) {
        const scope = scopeOfKey(String(member));
        const reply = await client.eval(SWEEP, keys(scope), [now]);
        for (const lock of fromList(String(reply))) expired.push({ scope, lock });
      }
      return expired;
    },

    async close() {
      client.close();
    },
  };
}
