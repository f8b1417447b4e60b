-- What an invoice needs of the ledger (docs/ledger.md#invoice-data), all optional on import: the
-- seller's identity and taxes on the property, the buyer's identity on a recipient, and a charge's
-- own VAT on a transaction. Addresses, electronic addresses, taxes and VAT are kept as imported
-- (jsonb, checked by the import's schema); an issue freezes what it reads into its document.
ALTER TABLE properties
  ADD COLUMN legal_name text,
  ADD COLUMN vat_id text,
  ADD COLUMN company_id text,
  ADD COLUMN postal_address jsonb,
  ADD COLUMN iban text,
  ADD COLUMN electronic_address jsonb,
  ADD COLUMN taxes jsonb;

ALTER TABLE recipients
  ADD COLUMN vat_id text,
  ADD COLUMN company_id text,
  ADD COLUMN postal_address jsonb,
  ADD COLUMN electronic_address jsonb;

ALTER TABLE transactions ADD COLUMN vat jsonb;
