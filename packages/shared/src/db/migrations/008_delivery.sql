-- Delivery of exports (docs/export.md#download-links, #webhooks, #retention): how long files are
-- kept, and the webhook endpoints and deliveries that announce them.

-- An export's file is kept until expires_at (set when it completes); the retention sweep then
-- deletes the object and marks the export expired. A night-audit batch likewise.
ALTER TABLE exports DROP CONSTRAINT exports_status_check;
ALTER TABLE exports ADD CONSTRAINT exports_status_check CHECK (status IN ('queued', 'running', 'completed', 'failed', 'expired'));
ALTER TABLE exports ADD COLUMN expires_at timestamptz;
CREATE INDEX exports_to_expire ON exports (expires_at) WHERE status = 'completed';

ALTER TABLE night_audit_batches DROP CONSTRAINT night_audit_batches_status_check;
ALTER TABLE night_audit_batches ADD CONSTRAINT night_audit_batches_status_check
  CHECK (status IN ('queued', 'running', 'completed', 'completed_with_failures', 'failed', 'expired'));
ALTER TABLE night_audit_batches ADD COLUMN expires_at timestamptz;
CREATE INDEX night_audit_batches_to_expire ON night_audit_batches (expires_at) WHERE status <> 'expired';

-- A property's webhook endpoints. The signing secret is stored sealed (AES-256-GCM under a key
-- derived from the transit key, which the API and the workers both hold) and shown once, at creation.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  property_id bigint NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  secret_ct bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhook_endpoints_by_property ON webhook_endpoints (property_id) WHERE deleted_at IS NULL;

-- One delivery per (event, endpoint): written in the same transaction as the status change that
-- raised the event (an outbox), then sent by a job on the `webhooks` queue whose id is the
-- delivery's. Every attempt carries event_id as webhook-id.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id),
  property_id bigint NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  last_status_code int,
  last_error text,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
