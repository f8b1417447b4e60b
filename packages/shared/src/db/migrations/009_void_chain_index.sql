-- "Does this chain hold a void?" (the listing's and the export's chain_voided, and includeVoided=false)
-- asks only about void rows: a partial index of them answers it. The index it replaces,
-- (property_id, root_id) INCLUDE (is_void) over every row, was passed over by the planner before a
-- table's first ANALYZE (right after a first import, until autovacuum gets to it): it then took the
-- folio index and filtered every row of the property once per row read, 121 ms instead of 12 ms for
-- a 1,000-row folio (bench/scenarios/export-small.ts). The partial index is chosen with or without statistics,
-- and holds only the voids.
CREATE INDEX transactions_voided_chains ON transactions (property_id, root_id) WHERE is_void;
DROP INDEX transactions_by_root;
