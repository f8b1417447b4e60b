-- Audit trail of the card vault (PCI DSS 10.2): who did what to which token, when, and how it ended.
-- No card data: the columns hold ids, codes and the JWT subject only. Written by the API, which is
-- the one place that knows the caller and also sees the requests that never reach a worker
-- (401/403, validation). Its own schema so the API's database role can be limited to INSERT here.
CREATE SCHEMA IF NOT EXISTS audit;

CREATE TABLE audit.vault_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  -- JWT `sub` of a verified token; NULL when the caller was not authenticated (an unverified
  -- token's claims are not evidence of anything).
  subject text CHECK (char_length(subject) <= 200),
  action text NOT NULL CHECK (action IN ('token.tokenize', 'token.read', 'token.delete')),
  outcome text NOT NULL CHECK (outcome IN ('success', 'denied', 'not_found', 'rejected', 'failed')),
  -- The contract's errorCode when the outcome is not success.
  error_code text CHECK (error_code ~ '^[A-Z_]{1,40}$'),
  http_status smallint NOT NULL,
  token_id uuid,
  property_id bigint,
  mode text CHECK (mode IN ('test', 'live')),
  request_id text NOT NULL CHECK (char_length(request_id) <= 128),
  -- Where the request came from as the API saw it (the peer address; no proxy header is trusted).
  client_address inet
);
CREATE INDEX ON audit.vault_events (occurred_at);
CREATE INDEX ON audit.vault_events (token_id) WHERE token_id IS NOT NULL;
CREATE INDEX ON audit.vault_events (property_id, occurred_at);

-- Append-only: an event cannot be changed or removed through normal statements. Retention purges
-- are an operator's act (as the table owner: ALTER TABLE … DISABLE TRIGGER, delete, enable).
CREATE FUNCTION audit.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only';
END;
$$;
CREATE TRIGGER vault_events_append_only BEFORE UPDATE OR DELETE ON audit.vault_events
  FOR EACH ROW EXECUTE FUNCTION audit.refuse_change();
