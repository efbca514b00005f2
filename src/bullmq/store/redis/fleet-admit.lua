-- The fleet gate's admission: one step, so that reading the count and adding a member cannot
-- interleave with another worker's. Every time is Redis's own clock (TIME).
-- KEYS[1] the places (a sorted set: member -> when its place ends)
-- ARGV[1] the limit, ARGV[2] the lease in ms, ARGV[3] the member
-- Returns 0 when admitted, else the ms until the earliest place ends (>= 1).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 0
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(first[2]) - now)
