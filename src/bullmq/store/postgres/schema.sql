-- Every table and function tenant-messaging/bullmq needs on PostgreSQL, beside BullMQ's own, in
-- the queue's schema (the first of the connection's search_path, as BullMQ's tables are).
-- Idempotent: every statement creates only what is missing. Run it once per deployment with a role
-- that may create tables (migrate(), or your migration tool with migrationSql()); the application's
-- role then needs only SELECT, INSERT, UPDATE and DELETE on these tables, and EXECUTE on the function.

-- The fleet gate's places: one row per admitted request, until its place ends. UNLOGGED: places
-- live seconds, and a crashed server forgetting them only frees the gate early once.
CREATE UNLOGGED TABLE IF NOT EXISTS tenant_messaging_fleet_place (
  key text NOT NULL,
  member text NOT NULL,
  ends_at timestamptz NOT NULL,
  PRIMARY KEY (key, member)
);

-- One admission: drops the places that ended, admits p_member when fewer than p_limit remain.
-- 0 when admitted, else the ms until the earliest place ends (>= 1). Every time is the server's.
CREATE OR REPLACE FUNCTION tenant_messaging_fleet_admit(p_key text, p_limit integer, p_lease_ms bigint, p_member text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz;
  v_count integer;
  v_first timestamptz;
BEGIN
  -- One admission at a time per gate: counting and adding are one step, as the Redis script is.
  PERFORM pg_advisory_xact_lock(hashtextextended('tenant-messaging:fleet:' || p_key, 0));
  v_now := clock_timestamp(); -- read once the lock is held, not before waiting for it
  DELETE FROM tenant_messaging_fleet_place WHERE key = p_key AND ends_at <= v_now;
  SELECT count(*), min(ends_at) INTO v_count, v_first FROM tenant_messaging_fleet_place WHERE key = p_key;
  IF v_count < p_limit THEN
    INSERT INTO tenant_messaging_fleet_place VALUES (p_key, p_member, v_now + p_lease_ms * interval '1 millisecond');
    RETURN 0;
  END IF;
  RETURN greatest(1, ceil(extract(epoch FROM (v_first - v_now)) * 1000))::bigint;
END
$$;

-- A lane's turn (fleet/lanes.ts): for sends that found every place of the lane open, up to the
-- lane's limit of them share a turn, turns a window apart. UNLOGGED, as the places: a turn lost
-- in a crash only makes some sends ask again sooner.
CREATE UNLOGGED TABLE IF NOT EXISTS tenant_messaging_fleet_turn (
  key text PRIMARY KEY,
  turn timestamptz NOT NULL,
  taken integer NOT NULL
);

-- One turn given: the lane's current one while it has room, else the next (a window later); a
-- turn that has passed starts again p_estimate_ms from now. The ms until the turn (>= 1).
CREATE OR REPLACE FUNCTION tenant_messaging_fleet_reserve(p_key text, p_estimate_ms double precision, p_window_ms double precision, p_limit integer)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz;
  v_turn timestamptz;
  v_taken integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('tenant-messaging:turn:' || p_key, 0));
  v_now := clock_timestamp();
  SELECT turn, taken INTO v_turn, v_taken FROM tenant_messaging_fleet_turn WHERE key = p_key;
  IF v_turn IS NULL OR v_turn < v_now THEN
    v_turn := v_now + p_estimate_ms * interval '1 millisecond';
    v_taken := 0;
  ELSIF v_taken >= p_limit THEN
    v_turn := v_turn + p_window_ms * interval '1 millisecond';
    v_taken := 0;
  END IF;
  INSERT INTO tenant_messaging_fleet_turn VALUES (p_key, v_turn, v_taken + 1)
    ON CONFLICT (key) DO UPDATE SET turn = excluded.turn, taken = excluded.taken;
  RETURN greatest(1, ceil(extract(epoch FROM (v_turn - v_now)) * 1000))::bigint;
END
$$;

-- Each queue's updates (sent, failed, unknown, delivered, read, delivery-timeout), read in id order
-- with a settle window (store/postgres/update-log.ts says why BullMQ's event table is not used).
CREATE TABLE IF NOT EXISTS tenant_messaging_update (
  queue text NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  body text NOT NULL,
  PRIMARY KEY (queue, id)
);

-- The webhook relay's state per queue: its reading position, and the endpoints a 410 disabled (by a
-- hash of their URL). Never a secret, never a URL.
CREATE TABLE IF NOT EXISTS tenant_messaging_webhook_state (
  queue text NOT NULL,
  field text NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (queue, field)
);
