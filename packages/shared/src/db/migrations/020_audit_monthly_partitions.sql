-- The audit trail by month (docs/production.md#the-audit-trails-monthly-partitions):
-- audit.vault_events becomes a table range-partitioned on occurred_at, one partition per calendar
-- month (UTC), so a retention purge detaches and drops a month instead of deleting rows from a
-- table that refuses deletes, and a query for a time range reads only its months. Every row is
-- kept with its id; the identity goes on after the highest one.
--
-- A default partition takes a row of a month that has no partition yet (the next months' are made
-- ahead by `npm run db:partitions`, which also moves such rows into the month it creates), so an
-- event is never refused for want of a partition. The same CHECKs, indexes, append-only trigger
-- and roles' INSERT grant as before, on the parent: PostgreSQL gives each partition the indexes
-- and the trigger; the roles insert through the parent, which is all their grant needs, and have
-- nothing on the partitions themselves.

ALTER TABLE audit.vault_events RENAME TO vault_events_unpartitioned;
ALTER INDEX audit.vault_events_pkey RENAME TO vault_events_unpartitioned_pkey;
ALTER INDEX audit.vault_events_occurred_at_idx RENAME TO vault_events_unpartitioned_occurred_at_idx;
ALTER INDEX audit.vault_events_token_id_idx RENAME TO vault_events_unpartitioned_token_id_idx;
ALTER INDEX audit.vault_events_property_id_occurred_at_idx RENAME TO vault_events_unpartitioned_property_id_occurred_at_idx;
ALTER SEQUENCE audit.vault_events_id_seq RENAME TO vault_events_unpartitioned_id_seq;

-- The same columns, defaults, CHECKs (by the same names) and identity column.
CREATE TABLE audit.vault_events (LIKE audit.vault_events_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY)
  PARTITION BY RANGE (occurred_at);
-- A partitioned table's key holds its partition key.
ALTER TABLE audit.vault_events ADD PRIMARY KEY (id, occurred_at);
CREATE INDEX ON audit.vault_events (occurred_at);
CREATE INDEX ON audit.vault_events (token_id) WHERE token_id IS NOT NULL;
CREATE INDEX ON audit.vault_events (property_id, occurred_at);
CREATE TABLE audit.vault_events_default PARTITION OF audit.vault_events DEFAULT;

-- A partition per month from the oldest row's to three months past this one (UTC).
DO $$
DECLARE
  month date := date_trunc('month', coalesce((SELECT min(occurred_at) FROM audit.vault_events_unpartitioned), now()) AT TIME ZONE 'UTC')::date;
  last date := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months')::date;
BEGIN
  WHILE month <= last LOOP
    EXECUTE format(
      'CREATE TABLE audit.%I PARTITION OF audit.vault_events FOR VALUES FROM (%L) TO (%L)',
      'vault_events_' || to_char(month, 'YYYY_MM'),
      month::timestamp AT TIME ZONE 'UTC',
      (month + interval '1 month')::timestamp AT TIME ZONE 'UTC'
    );
    month := (month + interval '1 month')::date;
  END LOOP;
END
$$;

INSERT INTO audit.vault_events OVERRIDING SYSTEM VALUE SELECT * FROM audit.vault_events_unpartitioned;
DO $$
DECLARE
  next_id bigint := (SELECT coalesce(max(id), 0) + 1 FROM audit.vault_events);
BEGIN
  EXECUTE format('ALTER TABLE audit.vault_events ALTER COLUMN id RESTART WITH %s', next_id);
END
$$;
DROP TABLE audit.vault_events_unpartitioned;

-- Append-only, as before (005): cloned onto every partition, present and future.
CREATE TRIGGER vault_events_append_only BEFORE UPDATE OR DELETE ON audit.vault_events
  FOR EACH ROW EXECUTE FUNCTION audit.refuse_change();

GRANT INSERT ON audit.vault_events TO folio_vault_api, folio_vault_worker;
