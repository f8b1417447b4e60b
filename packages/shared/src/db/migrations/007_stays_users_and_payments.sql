-- The stay behind a reservation, who posted, and the richer transaction fields (docs/ledger.md#import).
-- Like the other ledger tables, ids are the platform's int64 ids, unique within a property.

-- A reservation is the stay behind a RESERVATION source: its id is the source id.
CREATE TABLE reservations (
  property_id bigint NOT NULL,
  id bigint NOT NULL,
  identifier text,
  guest_name text NOT NULL,
  status text NOT NULL,
  checkin_date date NOT NULL,
  checkout_date date NOT NULL,
  adults integer,
  children integer,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, id)
);

-- A booked room of a reservation: its id is the sub-source id of the transactions posted to it.
CREATE TABLE reservation_rooms (
  property_id bigint NOT NULL,
  id bigint NOT NULL,
  reservation_id bigint NOT NULL,
  room_name text NOT NULL,
  room_type_name text,
  archived boolean NOT NULL DEFAULT false,
  position integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, id)
);
CREATE INDEX reservation_rooms_by_reservation ON reservation_rooms (property_id, reservation_id, position);

-- The people who post transactions. A transaction's user_id names one (text: "0" is the system).
CREATE TABLE users (
  property_id bigint NOT NULL,
  id text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (property_id, id)
);

-- account and payment are small objects read whole with their row: jsonb, amounts as decimal text.
-- payment.cardTokenId names a vault token of the property; its brand and last four were copied in
-- at import, so reading a folio never touches the vault.
ALTER TABLE transactions
  ADD COLUMN custom_transaction_code text,
  ADD COLUMN general_ledger_custom_code text,
  ADD COLUMN customer_id bigint,
  ADD COLUMN external_relation_id bigint,
  ADD COLUMN external_relation_kind text,
  ADD COLUMN account jsonb,
  ADD COLUMN foreign_currency char(3),
  ADD COLUMN foreign_currency_amount numeric,
  ADD COLUMN payment jsonb;
