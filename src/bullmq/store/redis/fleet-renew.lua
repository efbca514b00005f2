-- A send about to go renews its place (it waited at the fleet gate after its admission): the place
-- now ends ARGV[1] ms from now, if it has not ended already. Every time is Redis's own clock (TIME).
-- KEYS[1] the places; ARGV[1] the lease in ms, ARGV[2] the member.
-- Returns 1 when renewed, 0 when the place had ended (or was dropped): the send must not go.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ends = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[2]))
if ends == nil or ends <= now then
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
return 1
