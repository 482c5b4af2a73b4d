-- A pace that was idle starts slow: the turns of its first second are half as far apart again.
-- Hosts that just began a run are slow to send their first submits; sent late, they arrived
-- with the next ones on time and crowded the gateway's first second past its limit.
ALTER TABLE gateway_pace ADD COLUMN busy_since TIMESTAMPTZ;
