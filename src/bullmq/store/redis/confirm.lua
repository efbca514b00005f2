-- Before WAIT (store/redis/confirm.ts): whether each job is on the primary this connection reaches
-- (and, with marks, whether its data holds every one of them), then a write of a barrier key, so
-- that WAIT on this connection covers every write the primary applied before it: the checked ones.
-- KEYS[1] the barrier. ARGV[1] the barrier's life in ms, then per job its hash's key and its marks,
-- one per line ('' for none). The jobs' keys come as ARGV because a batch holds any number of them;
-- on a Cluster they share the barrier's slot (the queue's hash-tagged prefix), which Redis allows.
-- Returns 1 (found) or 0 per job.
local found = {}
for i = 2, #ARGV, 2 do
  local key, marks = ARGV[i], ARGV[i + 1]
  local ok
  if marks == '' then
    ok = redis.call('EXISTS', key) == 1
  else
    local data = redis.call('HGET', key, 'data')
    ok = data ~= false
    if ok then
      for mark in string.gmatch(marks, '[^\n]+') do
        if not string.find(data, mark, 1, true) then
          ok = false
          break
        end
      end
    end
  end
  found[#found + 1] = ok and 1 or 0
end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return found
