-- Whether the gateway's limit counts task queries, learned by the whole fleet as one process
-- learns it (`QueryRule` of src/engine/pace.ts): from a 429 to a query, or to a submit sent
-- under a known limit while queries went. A limit told by two 429s is the calls the gateway
-- let through between them: the submits that succeeded and the queries sent, not the turns
-- booked (a turn booked before a 429 is booked again, and some are never used).
ALTER TABLE gateway_pace
  ADD COLUMN queries_count BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN queried_at TIMESTAMPTZ;
ALTER TABLE gateway_pace RENAME COLUMN turns_since TO through_since;
