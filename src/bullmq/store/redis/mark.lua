-- The queue's marker (store/redis/guard.ts): written once if there is none, then read, in one step.
-- KEYS[1] the marker; ARGV[1] a new marker's value. Returns the marker that is there.
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
