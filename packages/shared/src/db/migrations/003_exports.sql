-- Folio exports (docs/export.md): one row per export, its status and, once done, its object.
-- Identical requests in flight share one export: the partial unique index admits one queued or
-- running export per (property, request digest).
CREATE TABLE exports (
  id uuid PRIMARY KEY,
  property_id bigint NOT NULL,
  request_digest text NOT NULL,
  request jsonb NOT NULL,
  language text NOT NULL,
  format text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  progress int NOT NULL DEFAULT 0,
  object_key text,
  filename text,
  size bigint,
  pages int,
  rows int,
  sha256 text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);
CREATE UNIQUE INDEX exports_in_flight ON exports (property_id, request_digest) WHERE status IN ('queued', 'running');
CREATE INDEX exports_by_property ON exports (property_id, created_at);
