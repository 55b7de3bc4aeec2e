// The keys of the Redis CallStore and the Lua scripts that change them. Each write is one script,
// so a check and the write it guards (the running limit, the owner fence, the log cap) are one
// atomic step across instances, and an event's XADD and its PUBLISH happen together: the stream's
// order is the channel's order. Keys (P = prefix; `{id}` is a hash tag, so one call's keys would
// share a slot under Redis Cluster):
//   P call:{id}            HASH owner, username, server, tool, startedAt (ms), status, lastSeq,
//                          instance, finishedAt (ms), response (JSON)
//   P call:{id}:events     STREAM, entry id `<seq>-0`, field `e` = the event's JSON
//   P call:{id}:progress   LIST of the kept progress events' seqs (the cap drops the oldest first)
//   P call:{id}:live       channel: each event's JSON, then `end`
//   P user:<owner>:calls   ZSET callId by startedAt (list)
//   P user:<owner>:running SET of running callIds (the limit)
//   P instance:<iid>:calls SET of the callIds an instance runs (for the reaper of a dead instance)
//   P calls:finished       ZSET callId by finishedAt (count retention)
// settle and sweep learn the owner from the hash, so they build user keys inside the script: fine
// on one Redis; under Cluster those keys would have to be declared (an owner hash tag).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export function callKeys(prefix: string, callId: string) {
  const call = `${prefix}call:{${callId}}`;
  return { call, events: `${call}:events`, progress: `${call}:progress`, live: `${call}:live` };
}

export function userKeys(prefix: string, owner: string) {
  return { calls: `${prefix}user:${owner}:calls`, running: `${prefix}user:${owner}:running` };
}

export const instanceCallsKey = (prefix: string, instance: string) => `${prefix}instance:${instance}:calls`;
export const finishedKey = (prefix: string) => `${prefix}calls:finished`;

/** What a live channel carries after the last event. Events are JSON objects, so never this. */
export const END_MESSAGE = 'end';

// Lua helpers shared by the scripts: key names as callKeys/userKeys build them.
const LUA_KEYS = `
local function callKey(prefix, id) return prefix .. 'call:{' .. id .. '}' end
local function userKey(prefix, owner, what) return prefix .. 'user:' .. owner .. ':' .. what end
`;

// The log cap, shared by append and reap: a full log drops its oldest progress event first, else
// its oldest event.
const LUA_CAP = `
local function makeRoom(events, progress, max)
  local length = redis.call('XLEN', events)
  if length == 0 or length < max then return end
  local oldest = redis.call('LPOP', progress)
  if oldest then
    redis.call('XDEL', events, oldest .. '-0')
  else
    local first = redis.call('XRANGE', events, '-', '+', 'COUNT', 1)
    redis.call('XDEL', events, first[1][1])
  end
end
`;

// The end of a running call, shared by settle and reap (the caller has checked the fence): the
// outcome, the running slot and the instance's set freed, retention, then `end` on the channel.
// KEYS 1..4: call, events, progress, calls:finished.
const LUA_SETTLE = `${LUA_KEYS}
local function settleCall(instance, status, response, finishedAt, ttl, prefix, id, live)
  redis.call('HSET', KEYS[1], 'status', status, 'response', response, 'finishedAt', finishedAt)
  local owner = redis.call('HGET', KEYS[1], 'owner')
  local running = userKey(prefix, owner, 'running')
  redis.call('SREM', running, id)
  redis.call('SREM', prefix .. 'instance:' .. instance .. ':calls', id)
  redis.call('ZADD', KEYS[4], finishedAt, id)
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
  -- With nothing running, the owner's list lives as long as its longest-kept call.
  if redis.call('SCARD', running) == 0 then
    local calls = userKey(prefix, owner, 'calls')
    local left = redis.call('PTTL', calls)
    if left == -1 or (left >= 0 and left < ttl) then redis.call('PEXPIRE', calls, ttl) end
  end
  redis.call('PUBLISH', live, '${END_MESSAGE}')
end
`;

/**
 * KEYS: call, user running, user calls, instance calls.
 * ARGV: maxRunning, callId, owner, username, server, tool, startedAt, instance.
 * Returns -1 when created, else the owner's running count (refused).
 */
export const CREATE = `
local running = redis.call('SCARD', KEYS[2])
if running >= tonumber(ARGV[1]) then return running end
redis.call('HSET', KEYS[1], 'owner', ARGV[3], 'username', ARGV[4], 'server', ARGV[5], 'tool', ARGV[6],
  'startedAt', ARGV[7], 'status', 'running', 'lastSeq', '0', 'instance', ARGV[8])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[2])
-- settle may have set the list to expire with its last settled call: it has a running one again.
redis.call('PERSIST', KEYS[3])
redis.call('SADD', KEYS[4], ARGV[2])
return -1
`;

/**
 * KEYS: call, events, progress. ARGV: instance, seq, type, event JSON, maxEvents, live channel.
 * Returns 1 when appended, 0 when the call is unknown, settled or another instance's, -1 when the
 * seq does not grow (checked before any write: a script that fails half way keeps its writes).
 */
export const APPEND = `${LUA_CAP}
if redis.call('HGET', KEYS[1], 'instance') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
local seq = tonumber(ARGV[2])
if seq <= tonumber(redis.call('HGET', KEYS[1], 'lastSeq')) then return -1 end
makeRoom(KEYS[2], KEYS[3], tonumber(ARGV[5]))
redis.call('XADD', KEYS[2], ARGV[2] .. '-0', 'e', ARGV[4])
if ARGV[3] == 'progress' then redis.call('RPUSH', KEYS[3], ARGV[2]) end
redis.call('HSET', KEYS[1], 'lastSeq', ARGV[2])
redis.call('PUBLISH', ARGV[6], ARGV[4])
return 1
`;

/**
 * KEYS: call, events, progress, calls:finished.
 * ARGV: instance, status, response JSON, finishedAt, ttl ms, prefix, callId, live channel.
 * Returns 1 when settled, 0 when the call is unknown, settled or another instance's.
 */
export const SETTLE = `${LUA_SETTLE}
if redis.call('HGET', KEYS[1], 'instance') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
settleCall(ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8])
return 1
`;

/**
 * Ends a call of a dead instance as failed (the reaper: redis-reaper.ts). Fenced on the call
 * being `instance`'s and running, and on that instance's liveness key being gone inside the same
 * script: of two reapers only the first writes, and an instance that came back (a zombie whose
 * heartbeat returned) keeps its calls. The event gets seq = lastSeq + 1 here, where lastSeq is
 * known; then the call settles as settle does.
 * KEYS: call, events, progress, calls:finished, the instance's liveness key, its calls set.
 * ARGV: instance, failed event JSON (seq filled here), response JSON, finishedAt, ttl ms, prefix,
 * callId, live channel, maxEvents.
 * Returns {seq, owner} when reaped (the failed event's seq, the call's owner), 0 when the instance
 * is alive or the call is not its running one (then the call leaves the instance's set, which no
 * longer describes it).
 */
export const REAP = `${LUA_SETTLE}${LUA_CAP}
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
if redis.call('HGET', KEYS[1], 'instance') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'status') ~= 'running' then
  redis.call('SREM', KEYS[6], ARGV[7])
  return 0
end
local seq = tonumber(redis.call('HGET', KEYS[1], 'lastSeq')) + 1
local event = cjson.decode(ARGV[2])
event.seq = seq
local json = cjson.encode(event)
makeRoom(KEYS[2], KEYS[3], tonumber(ARGV[9]))
redis.call('XADD', KEYS[2], seq .. '-0', 'e', json)
redis.call('HSET', KEYS[1], 'lastSeq', seq)
redis.call('PUBLISH', ARGV[8], json)
settleCall(ARGV[1], 'failed', ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8])
return {seq, redis.call('HGET', KEYS[1], 'owner')}
`;

/**
 * KEYS: the instance's liveness key, the instances set, its calls set. ARGV: instance.
 * Forgets a dead instance once none of its calls is left; 1 when forgotten, 0 when it is alive
 * again or a call joined its set meanwhile (the next round reaps it).
 */
export const FORGET_INSTANCE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[3]) > 0 then return 0 end
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return 1
`;

/** KEYS: call, events. ARGV: first stream id. Returns {status or '', entries}, one snapshot. */
export const READ_FROM = `
local status = redis.call('HGET', KEYS[1], 'status')
return {status or '', redis.call('XRANGE', KEYS[2], ARGV[1], '+')}
`;

/**
 * KEYS: user calls. ARGV: prefix. Returns {callId, HGETALL fields} per kept call, oldest start
 * first, and drops the members whose hash expired.
 */
export const LIST = `${LUA_KEYS}
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local fields = redis.call('HGETALL', callKey(ARGV[1], id))
  if #fields == 0 then redis.call('ZREM', KEYS[1], id) else out[#out + 1] = {id, fields} end
end
return out
`;

/**
 * KEYS: calls:finished. ARGV: cutoff (ms), maxKept, prefix. Forgets the settled calls finished
 * before the cutoff and, of the rest, the oldest finished beyond maxKept. Returns how many.
 */
export const SWEEP = `${LUA_KEYS}
local prefix = ARGV[3]
local expired = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - expired - tonumber(ARGV[2])
local drop = expired + math.max(0, excess)
if drop == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, drop - 1)) do
  local call = callKey(prefix, id)
  local owner = redis.call('HGET', call, 'owner')
  if owner then redis.call('ZREM', userKey(prefix, owner, 'calls'), id) end
  redis.call('DEL', call, call .. ':events', call .. ':progress')
end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, drop - 1)
return drop
`;

/**
 * Runs a script by its SHA (EVALSHA), loading it on NOSCRIPT (a new or flushed Redis). ioredis's
 * defineCommand would add methods to a connection the store only borrows.
 */
export async function runScript(redis: Redis, script: string, keys: string[], args: (string | number)[]) {
  const sha = shaOf(script);
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script, keys.length, ...keys, ...args);
  }
}

const shas = new Map<string, string>();
function shaOf(script: string): string {
  let sha = shas.get(script);
  if (!sha) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  return sha;
}
