-- A request's answer came: its place now ends ARGV[1] ms from now (Redis's clock).
-- KEYS[1] the places; ARGV[1] the window in ms, ARGV[2] the member. Returns 0.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
return 0
