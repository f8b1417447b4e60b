-- Vault: test and live tokens live apart, each in its own schema (and under its own KEK).
-- Clear columns are only what a card's owner may see on a receipt: brand, first six, last four,
-- expiry, a masked name and a keyed fingerprint. Everything else is AES-256-GCM ciphertext under
-- the record's data key; wrapped_dek NULL means the record was crypto-shredded.
CREATE SCHEMA IF NOT EXISTS vault_test;
CREATE SCHEMA IF NOT EXISTS vault_live;

CREATE TABLE vault_test.cards (
  id uuid PRIMARY KEY,
  property_id bigint NOT NULL,
  card_brand text NOT NULL,
  first6 text NOT NULL,
  last4 text NOT NULL,
  exp_month text NOT NULL,
  exp_year text NOT NULL,
  cardholder_name_masked text,
  fingerprint text NOT NULL,
  kek_id text,
  wrapped_dek bytea,
  pan_ct bytea,
  cardholder_name_ct bytea,
  billing_details_ct bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX ON vault_test.cards (property_id, fingerprint);
CREATE INDEX ON vault_test.cards (kek_id) WHERE wrapped_dek IS NOT NULL;

CREATE TABLE vault_test.idempotency_keys (
  property_id bigint NOT NULL,
  idempotency_key text NOT NULL,
  request_digest text NOT NULL,
  token_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, idempotency_key)
);
CREATE INDEX ON vault_test.idempotency_keys (created_at);

CREATE TABLE vault_live.cards (LIKE vault_test.cards INCLUDING ALL);
CREATE TABLE vault_live.idempotency_keys (LIKE vault_test.idempotency_keys INCLUDING ALL);

-- Properties as imported from the PMS (docs/ledger.md). The vault reads gateway_mode only.
CREATE TABLE properties (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  address text,
  currency char(3) NOT NULL,
  timezone text NOT NULL,
  language text,
  gateway_mode text NOT NULL CHECK (gateway_mode IN ('test', 'live')),
  night_audit_time text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
