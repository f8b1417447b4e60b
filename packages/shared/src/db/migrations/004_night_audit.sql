-- Night-audit batch exports (docs/night-audit.md). One batch per (property, business date, format); a
-- re-run resets it and rewrites the same object keys. One item per source, upserted by its
-- export job, so a job delivered twice still counts once.
CREATE TABLE night_audit_batches (
  id uuid PRIMARY KEY,
  property_id bigint NOT NULL,
  business_date date NOT NULL,
  format text NOT NULL,
  run int NOT NULL DEFAULT 1,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'completed_with_failures', 'failed')),
  total int NOT NULL DEFAULT 0,
  manifest_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  UNIQUE (property_id, business_date, format)
);

CREATE TABLE night_audit_items (
  batch_id uuid NOT NULL REFERENCES night_audit_batches (id) ON DELETE CASCADE,
  source_kind text NOT NULL,
  source_id bigint NOT NULL,
  run int NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
  object_key text NOT NULL,
  folio_ids bigint[] NOT NULL DEFAULT '{}',
  size bigint,
  sha256 text,
  pages int,
  rows int,
  error text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (batch_id, source_kind, source_id)
);
