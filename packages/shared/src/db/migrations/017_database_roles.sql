-- Database roles (docs/operations.md#database-roles): the API connects as folio_vault_api, the
-- workers as folio_vault_worker; the schema's owner (DATABASE_URL) runs the migrations and keeps
-- every other right. The API's role has no privilege at all on the vault's schemas: what holds
-- the API's database access reads no ciphertext, wrapped key, held CVV or forward attempt and
-- moves no card. The workers' role has what the workers' statements use, and no DELETE of a card
-- record (a record is shredded by an UPDATE, never removed).
--
-- Roles belong to the cluster, not to this database: they are created here only when missing and
-- never altered, so roles an operator made (where the owner may not create roles, or with a
-- password, a connection limit) stay as they are. No password is set here: an operator sets one
-- (ALTER ROLE … PASSWORD) where the server wants one. Two databases of one cluster migrating at
-- once may both try to create a role; the one that loses finds it made.
--
-- Grants are explicit, table by table: a migration that creates a table grants on it in the same
-- file. docs/operations.md#database-roles lists every table and what each role may do there, and
-- test/migrate.test.ts fails when the catalog and that list differ (a new table with no decision).
DO $$
DECLARE
  role_name text;
BEGIN
  FOREACH role_name IN ARRAY ARRAY['folio_vault_api', 'folio_vault_worker'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I LOGIN', role_name);
      EXCEPTION
        WHEN duplicate_object OR unique_violation THEN
          NULL; -- made meanwhile by another database's migration
        WHEN insufficient_privilege THEN
          RAISE EXCEPTION 'role % does not exist and % may not create roles', role_name, current_user
            USING HINT = format('create it as a role administrator (CREATE ROLE %I LOGIN), then migrate again', role_name);
      END;
    END IF;
  END LOOP;
END
$$;

-- The API: nothing of the vault, not even its schemas' names.
REVOKE ALL ON ALL TABLES IN SCHEMA vault_test, vault_live FROM folio_vault_api;
REVOKE ALL ON SCHEMA vault_test, vault_live FROM folio_vault_api;

GRANT USAGE ON SCHEMA public, audit TO folio_vault_api, folio_vault_worker;
GRANT USAGE ON SCHEMA vault_test, vault_live TO folio_vault_worker;

-- Which migrations are applied: a process started without the owner's URL checks that none is
-- pending (packages/shared/src/db/migrate.ts).
GRANT SELECT ON schema_migrations TO folio_vault_api, folio_vault_worker;

-- The ledger: the API imports (upserts) and lists it; the workers read it for exports and night audits.
GRANT SELECT, INSERT, UPDATE ON properties, recipients, folios, transactions, reservations, users TO folio_vault_api;
GRANT SELECT, INSERT, UPDATE, DELETE ON reservation_rooms TO folio_vault_api;
GRANT SELECT ON properties, recipients, folios, transactions, reservations, reservation_rooms, users TO folio_vault_worker;

-- Exports: the API queues them and reads their status; a worker runs, ends and expires them.
GRANT SELECT, INSERT, UPDATE ON exports TO folio_vault_api;
GRANT SELECT, UPDATE ON exports TO folio_vault_worker;

-- Night audits: started by the API or by a worker's schedule, dispatched by either, run by workers.
GRANT SELECT, INSERT, UPDATE ON night_audit_batches TO folio_vault_api, folio_vault_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON night_audit_items TO folio_vault_api, folio_vault_worker;

-- Webhooks: the API manages endpoints and retries deliveries; both record deliveries of events
-- (the outbox), a worker sends them.
GRANT SELECT, INSERT, UPDATE ON webhook_endpoints TO folio_vault_api;
GRANT SELECT ON webhook_endpoints TO folio_vault_worker;
GRANT SELECT, INSERT, UPDATE ON webhook_deliveries TO folio_vault_api, folio_vault_worker;

-- The audit trail: append only, for both (reads are the owner's).
GRANT INSERT ON audit.vault_events TO folio_vault_api, folio_vault_worker;

-- The vault: the workers only.
GRANT SELECT, INSERT, UPDATE ON vault_test.cards, vault_live.cards TO folio_vault_worker;
GRANT SELECT, INSERT, UPDATE ON vault_test.idempotency_keys, vault_live.idempotency_keys TO folio_vault_worker;
GRANT SELECT, INSERT, DELETE ON vault_test.held_cvvs, vault_live.held_cvvs TO folio_vault_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON vault_test.forward_attempts, vault_live.forward_attempts TO folio_vault_worker;
