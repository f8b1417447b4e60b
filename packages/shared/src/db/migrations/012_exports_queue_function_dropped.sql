-- Queuing an export is a plain transaction in packages/shared/src/exports/export-store.ts (queue()):
-- the property's advisory lock, the identical export in flight, the count, the insert.
DROP FUNCTION IF EXISTS exports_queue(uuid, bigint, text, jsonb, text, text, integer);
