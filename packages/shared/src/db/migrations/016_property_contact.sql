-- What a folio's header says of the hotel besides its name and address: its tax id and how to reach
-- it (all optional, as imported with the property).
ALTER TABLE properties
  ADD COLUMN tax_id text,
  ADD COLUMN phone text,
  ADD COLUMN email text,
  ADD COLUMN website text;
