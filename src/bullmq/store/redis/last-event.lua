-- The id of the newest entry of a queue's event stream: where a reader "from now" starts, exactly
-- (the stream's ids come from Redis's clock, not the reader's). '0-0' for an empty stream.
-- KEYS[1] the stream.
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #newest == 0 then return '0-0' end
return newest[1][1]
