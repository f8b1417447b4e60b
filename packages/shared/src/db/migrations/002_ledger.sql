-- The ledger (docs/ledger.md): recipients, folios and transactions of each property. IDs are the
-- platform's int64 ids, unique within a property (two properties may reuse source and folio
-- numbers and never mix). Money is NUMERIC; instants are timestamptz; service dates are DATE.
CREATE TABLE recipients (
  property_id bigint NOT NULL,
  type text NOT NULL,
  id bigint NOT NULL,
  name text NOT NULL,
  address text,
  email text,
  tax_id text,
  document_number text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, type, id)
);

CREATE TABLE folios (
  property_id bigint NOT NULL,
  id bigint NOT NULL,
  source_kind text NOT NULL,
  source_id bigint NOT NULL,
  source_identifier text,
  name text NOT NULL,
  parent_id bigint,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, id)
);
CREATE INDEX folios_by_source ON folios (property_id, source_kind, source_id);

CREATE TABLE transactions (
  property_id bigint NOT NULL,
  id bigint NOT NULL,
  folio_id bigint NOT NULL,
  source_kind text NOT NULL,
  source_id bigint NOT NULL,
  source_identifier text,
  sub_source_id bigint,
  sub_source_identifier text,
  transaction_datetime timestamptz NOT NULL,
  service_date date NOT NULL,
  internal_transaction_code text NOT NULL,
  internal_code_group text NOT NULL,
  origin_id bigint,
  payment_method text,
  description text NOT NULL,
  notes text,
  quantity numeric NOT NULL,
  amount numeric NOT NULL,
  currency char(3) NOT NULL,
  posted boolean NOT NULL,
  parent_id bigint,
  -- The void chain this row belongs to: the given rootId, else its parent's chain, else itself.
  root_id bigint NOT NULL,
  is_void boolean NOT NULL DEFAULT false,
  user_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, id)
);
-- Listing and export read one source at a time, usually in time order.
CREATE INDEX transactions_by_source ON transactions (property_id, source_kind, source_id, transaction_datetime, id);
CREATE INDEX transactions_by_folio ON transactions (property_id, folio_id);
CREATE INDEX transactions_by_datetime ON transactions (property_id, transaction_datetime);
-- includeVoided=false asks "does this chain hold a void?".
CREATE INDEX transactions_by_root ON transactions (property_id, root_id) INCLUDE (is_void);
