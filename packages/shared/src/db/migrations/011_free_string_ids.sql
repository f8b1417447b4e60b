-- customerId and externalRelationId are identifiers the reference accounting API types as plain
-- strings (docs/ledger.md#import): text, kept exactly as the client sent them. A stored bigint
-- becomes its decimal digits. (A payment's paymentId and an account's id live inside the payment
-- and account jsonb, where they are strings already.)
ALTER TABLE transactions
  ALTER COLUMN customer_id TYPE text USING customer_id::text,
  ALTER COLUMN external_relation_id TYPE text USING external_relation_id::text;
