-- A turn for a send whose lane is full and whose places are all still open (their ends unknown):
-- up to ARGV[3] sends share a turn, turns are ARGV[2] ms apart, and a lane whose last turn has
-- passed starts again ARGV[1] ms from now. Waiting sends thus come back a lane's worth at a time,
-- not all at once. Every time is Redis's own clock (TIME).
-- KEYS[1] the lane's turn (a hash: turn, ms since the epoch; taken, sends given it).
-- ARGV[1] the estimate in ms, ARGV[2] the window in ms, ARGV[3] the lane's limit.
-- Returns the ms from now until the turn given (>= 1).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local turn = tonumber(redis.call('HGET', KEYS[1], 'turn') or '0')
local taken = tonumber(redis.call('HGET', KEYS[1], 'taken') or '0')
if turn < now then
  turn = now + tonumber(ARGV[1])
  taken = 0
elseif taken >= tonumber(ARGV[3]) then
  turn = turn + tonumber(ARGV[2])
  taken = 0
end
redis.call('HSET', KEYS[1], 'turn', turn, 'taken', taken + 1)
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(turn - now + tonumber(ARGV[2]))))
return math.max(1, math.ceil(turn - now))
