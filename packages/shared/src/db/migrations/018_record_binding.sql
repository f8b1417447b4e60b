-- A card record bound to its property (docs/security.md#a-record-names-its-property): the
-- associated data of a record's wrapped data key, field ciphertexts and held CVV names property,
-- mode and token id (binding 2), so a record copied or moved into another property's row does not
-- open. Records written before name mode and token id only (binding 1): they still open, and the
-- vault sweep and `npm run keys:rotate` re-bind them in batches (apps/worker/src/vault/record-passes.ts).
-- New records are written with binding 2 (the insert names it; the default says the same).
DO $$
DECLARE mode text;
BEGIN
  FOREACH mode IN ARRAY ARRAY['vault_test', 'vault_live'] LOOP
    EXECUTE format('ALTER TABLE %I.cards ADD COLUMN record_binding smallint NOT NULL DEFAULT 1 CHECK (record_binding IN (1, 2))', mode);
    EXECUTE format('ALTER TABLE %I.cards ALTER COLUMN record_binding SET DEFAULT 2', mode);
    -- The re-binding pass finds what is left of binding 1 without reading the whole table.
    EXECUTE format('CREATE INDEX ON %I.cards (id) WHERE record_binding = 1 AND wrapped_dek IS NOT NULL', mode);
  END LOOP;
END $$;

-- Re-binding seals a held CVV again under the record's new associated data: the workers' role
-- updates held CVVs (docs/operations.md#database-roles).
GRANT UPDATE ON vault_test.held_cvvs, vault_live.held_cvvs TO folio_vault_worker;

-- A vault job a worker refused (its signature missing, not verifying, of an unknown key, or
-- expired): the job's name and the reason, with the property and token it named; never its
-- payload. Such an event answers no HTTP request, so it has no status.
ALTER TABLE audit.vault_events DROP CONSTRAINT vault_events_action_check;
ALTER TABLE audit.vault_events ADD CONSTRAINT vault_events_action_check
  CHECK (action IN ('token.tokenize', 'token.read', 'token.delete', 'token.search', 'token.forward', 'token.expire', 'job.refused'));
ALTER TABLE audit.vault_events ALTER COLUMN http_status DROP NOT NULL;
ALTER TABLE audit.vault_events
  ADD COLUMN job_name text CHECK (char_length(job_name) <= 100),
  ADD COLUMN refusal text CHECK (refusal IN ('unsigned', 'unknown_key', 'bad_signature', 'expired'));
