-- Token lifecycle and the forward proxy (docs/vault.md#token-lifecycle, docs/vault.md#forward-to-a-payment-gateway).
-- Run for both modes: test and live stay apart, each in its own schema.
DO $$
DECLARE
  mode text;
BEGIN
  FOREACH mode IN ARRAY ARRAY['vault_test', 'vault_live'] LOOP
    -- Every token ends: at the latest VAULT_SHRED_AFTER_EXPIRY_DAYS (default 30) after the end of
    -- the card's expiry month (UTC). Existing tokens get the default's end; the sweep shreds them.
    EXECUTE format('ALTER TABLE %I.cards ADD COLUMN expires_at timestamptz', mode);
    EXECUTE format(
      $sql$UPDATE %I.cards
              SET expires_at = ((make_date(exp_year::int, exp_month::int, 1) + interval '1 month')::timestamp
                                AT TIME ZONE 'UTC') + interval '30 days'$sql$,
      mode);
    EXECUTE format('ALTER TABLE %I.cards ALTER COLUMN expires_at SET NOT NULL', mode);
    EXECUTE format('ALTER TABLE %I.cards ADD COLUMN last_used_at timestamptz', mode);
    -- Fingerprints were one HMAC over the PAN for every property (version 1); version 2 binds the
    -- property id in, so the same card gives unrelated fingerprints across properties. Version 1
    -- rows are re-fingerprinted by the worker (it holds the keys): the vault sweep and keys:rotate.
    EXECUTE format('ALTER TABLE %I.cards ADD COLUMN fingerprint_version smallint NOT NULL DEFAULT 1', mode);
    EXECUTE format('ALTER TABLE %I.cards ALTER COLUMN fingerprint DROP NOT NULL', mode);
    -- A shredded record's PAN is gone, so its old fingerprint cannot be recomputed: drop it.
    EXECUTE format('UPDATE %I.cards SET fingerprint = NULL, fingerprint_version = 2 WHERE wrapped_dek IS NULL', mode);
    EXECUTE format('CREATE INDEX ON %I.cards (expires_at) WHERE wrapped_dek IS NOT NULL', mode);
    EXECUTE format('CREATE INDEX ON %I.cards (id) WHERE fingerprint_version = 1 AND wrapped_dek IS NOT NULL', mode);

    -- The CVV held for a first authorization: sealed under the record's data key (so shredding the
    -- record destroys it too), in a table of its own, deleted on first use, on delete, on expiry
    -- and by the sweep after held_until.
    EXECUTE format(
      'CREATE TABLE %1$I.held_cvvs (
         token_id uuid PRIMARY KEY REFERENCES %1$I.cards (id) ON DELETE CASCADE,
         cvv_ct bytea NOT NULL,
         held_until timestamptz NOT NULL
       )', mode);
    EXECUTE format('CREATE INDEX ON %I.held_cvvs (held_until)', mode);

    -- One row per Idempotency-Key of a forward, written (state started) and committed before the
    -- gateway is called: a re-run that finds it started without an answer never calls again.
    -- The answer kept for replays is the masked one the caller got; no card data in any column.
    EXECUTE format(
      $sql$CREATE TABLE %I.forward_attempts (
         property_id bigint NOT NULL,
         idempotency_key text NOT NULL,
         request_digest text NOT NULL,
         forward_id uuid NOT NULL UNIQUE,
         token_id uuid NOT NULL,
         destination text NOT NULL,
         method text NOT NULL,
         state text NOT NULL CHECK (state IN ('started', 'done')),
         answer jsonb,
         started_at timestamptz NOT NULL DEFAULT now(),
         finished_at timestamptz,
         PRIMARY KEY (property_id, idempotency_key)
       )$sql$, mode);
    EXECUTE format('CREATE INDEX ON %I.forward_attempts (token_id)', mode);
    -- The sweep drops recorded answers past their retention: it finds them by this index, not by
    -- reading a table that only grows.
    EXECUTE format('CREATE INDEX ON %I.forward_attempts (finished_at) WHERE answer IS NOT NULL', mode);
  END LOOP;
END
$$;

-- Audit: forwards and searches are vault events too, with what the forward did (never card data:
-- the destination's name, the method, the path template, the gateway's status and the duration).
ALTER TABLE audit.vault_events DROP CONSTRAINT vault_events_action_check;
ALTER TABLE audit.vault_events ADD CONSTRAINT vault_events_action_check
  CHECK (action IN ('token.tokenize', 'token.read', 'token.delete', 'token.search', 'token.forward', 'token.expire'));
ALTER TABLE audit.vault_events
  ADD COLUMN destination text CHECK (char_length(destination) <= 100),
  ADD COLUMN forward_method text CHECK (forward_method IN ('POST', 'PUT', 'PATCH', 'GET', 'DELETE')),
  ADD COLUMN forward_path text CHECK (char_length(forward_path) <= 2048),
  ADD COLUMN gateway_status smallint,
  ADD COLUMN duration_ms integer;
