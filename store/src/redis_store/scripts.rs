//! The Lua scripts of the Redis backend. A script runs atomically on the
//! server, in one round trip, which is what makes increment,
//! compare-and-swap, the window counter and the batches atomic across
//! replicas. (WATCH/MULTI would need a connection per transaction, since
//! WATCH belongs to a connection and the connection manager shares one,
//! and would retry under contention.)
//!
//! A namespace is four Redis keys sharing one hash tag (`mwh1{NS}`, so a
//! cluster keeps them on one slot):
//! - `…h` a hash, key → value;
//! - `…i` a sorted set of the keys, all of score 0, listed in byte order
//!   with `ZRANGE BYLEX` (no `KEYS`, no `SCAN` over the keyspace);
//! - `…x` a sorted set of the keys that expire, scored by their deadline
//!   in milliseconds on the server's clock (Redis 7.0 has no per-field
//!   expiry); an expired entry reads as absent and is removed by the next
//!   write or size of its namespace;
//! - `…b` the bytes of its keys and values (the hash's `HLEN` counts
//!   keys).
//!
//! Integers cross the script boundary as strings: Lua numbers are doubles.

/// What every script starts with: the namespace's keys, the server's clock
/// and the helpers that keep the four keys consistent.
const PRELUDE: &str = r"
local h, i, x, b = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local function int(n) return string.format('%d', n) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function live(k)
  local e = redis.call('ZSCORE', x, k)
  return (not e) or tonumber(e) > now
end
local function present(k) return redis.call('HEXISTS', h, k) == 1 end
local function get_live(k)
  local v = redis.call('HGET', h, k)
  if v and live(k) then return v end
  return false
end
local function drop(k)
  redis.call('ZREM', i, k)
  redis.call('ZREM', x, k)
  if not present(k) then return false end
  local len = redis.call('HSTRLEN', h, k)
  redis.call('HDEL', h, k)
  if redis.call('HLEN', h) == 0 then
    redis.call('DEL', b)
  else
    redis.call('DECRBY', b, int(#k + len))
  end
  return true
end
local function put(k, v, ttl)
  if present(k) then
    redis.call('INCRBY', b, int(#v - redis.call('HSTRLEN', h, k)))
  else
    redis.call('INCRBY', b, int(#k + #v))
    redis.call('ZADD', i, '0', k)
  end
  redis.call('HSET', h, k, v)
  if ttl > 0 then
    redis.call('ZADD', x, int(now + ttl), k)
  else
    redis.call('ZREM', x, k)
  end
end
local function sweep(max)
  local dead = redis.call('ZRANGE', x, '-inf', int(now), 'BYSCORE', 'LIMIT', '0', int(max))
  for _, k in ipairs(dead) do drop(k) end
end
local function incr(k, delta)
  if not live(k) then drop(k) end
  local existed = present(k)
  local old = existed and redis.call('HSTRLEN', h, k) or 0
  local r = redis.pcall('HINCRBY', h, k, delta)
  if type(r) == 'table' and r.err then return nil, r.err end
  local v = redis.call('HGET', h, k)
  if existed then
    redis.call('INCRBY', b, int(#v - old))
  else
    redis.call('INCRBY', b, int(#k + #v))
    redis.call('ZADD', i, '0', k)
  end
  return v
end
";

/// ARGV: keys. Returns each live value or nil.
pub(super) const GET_MANY: &str = r"
local out = {}
for n, k in ipairs(ARGV) do out[n] = get_live(k) end
return out
";

/// ARGV: key. Returns 1 if a live entry exists.
pub(super) const EXISTS: &str = r"
if present(ARGV[1]) and live(ARGV[1]) then return 1 end
return 0
";

/// ARGV: ttl in ms (0: none), then key, value, key, value...
pub(super) const SET_MANY: &str = r"
local ttl = tonumber(ARGV[1])
for n = 2, #ARGV, 2 do put(ARGV[n], ARGV[n + 1], ttl) end
sweep(16)
return 0
";

/// ARGV: keys. Returns how many had a live entry.
pub(super) const DELETE_MANY: &str = r"
local n = 0
for _, k in ipairs(ARGV) do
  local was_live = present(k) and live(k)
  if drop(k) and was_live then n = n + 1 end
end
sweep(16)
return n
";

/// ARGV: cursor (`-` or `(` and the last key), limit, budget. Returns
/// {more, last key examined, live keys}.
pub(super) const LIST: &str = r"
local limit, budget, start = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[1]
local keys, last, more = {}, '', 0
while true do
  local chunk = math.min(budget, limit - #keys + 1)
  if chunk <= 0 then more = 1 break end
  local raw = redis.call('ZRANGE', i, start, '+', 'BYLEX', 'LIMIT', '0', int(chunk))
  budget = budget - #raw
  for _, k in ipairs(raw) do
    if #keys == limit then more = 1 break end
    last = k
    if live(k) then keys[#keys + 1] = k end
  end
  if more == 1 or #raw < chunk then break end
  start = '(' .. last
end
return {more, last, keys}
";

/// ARGV: key, delta. Returns {1, new value} or {0, error}.
pub(super) const INCREMENT: &str = r"
local v, err = incr(ARGV[1], ARGV[2])
if not v then return {0, err} end
return {1, v}
";

/// ARGV: key, '1' if a value is expected (else '0'), expected value, new
/// value, ttl in ms (0: none). Returns {swapped, current present, current}.
pub(super) const COMPARE_AND_SWAP: &str = r"
local k = ARGV[1]
local cur = get_live(k)
local matches
if ARGV[2] == '1' then matches = (cur == ARGV[3]) else matches = (cur == false) end
if matches then
  put(k, ARGV[4], tonumber(ARGV[5]))
  return {1, 0, ''}
end
if cur then return {0, 1, cur} end
return {0, 0, ''}
";

/// ARGV: key, amount, window in ms. Returns {1, count, ms left} or {0,
/// error, 0}.
pub(super) const COUNT_IN_WINDOW: &str = r"
local k = ARGV[1]
local v, err = incr(k, ARGV[2])
if not v then return {0, err, '0'} end
local e = redis.call('ZSCORE', x, k)
if e then
  e = tonumber(e)
else
  e = now + tonumber(ARGV[3])
  redis.call('ZADD', x, int(e), k)
end
return {1, v, int(e - now)}
";

/// Sweeps, then returns {keys, bytes}.
pub(super) const SIZE: &str = r"
sweep(1000)
return {redis.call('HLEN', h), redis.call('GET', b) or '0'}
";

/// The scripts, each with the prelude.
pub(super) struct Scripts {
    pub(super) get_many: redis::Script,
    pub(super) exists: redis::Script,
    pub(super) set_many: redis::Script,
    pub(super) delete_many: redis::Script,
    pub(super) list: redis::Script,
    pub(super) increment: redis::Script,
    pub(super) compare_and_swap: redis::Script,
    pub(super) count_in_window: redis::Script,
    pub(super) size: redis::Script,
}

impl Scripts {
    pub(super) fn new() -> Scripts {
        let script = |body: &str| redis::Script::new(&format!("{PRELUDE}{body}"));
        Scripts {
            get_many: script(GET_MANY),
            exists: script(EXISTS),
            set_many: script(SET_MANY),
            delete_many: script(DELETE_MANY),
            list: script(LIST),
            increment: script(INCREMENT),
            compare_and_swap: script(COMPARE_AND_SWAP),
            count_in_window: script(COUNT_IN_WINDOW),
            size: script(SIZE),
        }
    }
}
