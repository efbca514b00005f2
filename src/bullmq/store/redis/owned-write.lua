-- A job's data written only by the worker that holds its lock: the write and the proof of
-- ownership in one step. A worker whose lock expired (a datastore stalled longer than
-- lockDuration) may have been overtaken by another worker that took the job since.
-- KEYS[1] the job's hash, KEYS[2] its lock; ARGV[1] the worker's lock token, ARGV[2] the data.
-- Returns 1 when written, 0 when the lock is not (or no longer) the token's, -1 when the job is gone.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return 0
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
redis.call('HSET', KEYS[1], 'data', ARGV[2])
return 1
