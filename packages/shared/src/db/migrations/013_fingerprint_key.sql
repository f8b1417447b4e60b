-- Which key computed each fingerprint (the key provider's fingerprint key id). A record whose
-- fingerprint came from another key than the worker's is re-fingerprinted by the vault sweep and
-- keys:rotate, so duplicate detection keeps working after the key moves into an HSM or components.
-- Every earlier fingerprint came from the one VAULT_FINGERPRINT_KEY, which `local` calls "local".
DO $$
DECLARE mode text;
BEGIN
  FOREACH mode IN ARRAY ARRAY['vault_test', 'vault_live'] LOOP
    EXECUTE format('ALTER TABLE %I.cards ADD COLUMN fingerprint_key text NOT NULL DEFAULT ''local''', mode);
    EXECUTE format('ALTER TABLE %I.cards ALTER COLUMN fingerprint_key DROP DEFAULT', mode);
  END LOOP;
END $$;
