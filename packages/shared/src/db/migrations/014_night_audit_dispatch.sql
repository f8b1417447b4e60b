-- Night-audit batches of a property run at most NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY at once
-- (docs/night-audit.md#how-many-at-once): a batch in flight is either handed to the queue
-- (`dispatched`) or waiting for a place. Rows from before were all handed to the queue at start.
ALTER TABLE night_audit_batches ADD COLUMN dispatched boolean NOT NULL DEFAULT true;
CREATE INDEX night_audit_batches_in_flight ON night_audit_batches (property_id, created_at) WHERE status IN ('queued', 'running');
-- A re-run that no longer lists a source keeps its item as `retired` until the manifest job has
-- deleted the object the earlier run wrote (docs/night-audit.md#a-batch).
ALTER TABLE night_audit_items DROP CONSTRAINT night_audit_items_status_check;
ALTER TABLE night_audit_items ADD CONSTRAINT night_audit_items_status_check CHECK (status IN ('pending', 'completed', 'failed', 'retired'));
