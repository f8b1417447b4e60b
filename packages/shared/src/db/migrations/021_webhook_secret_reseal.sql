-- `npm run keys:rotate` seals webhook endpoints' secrets again to the active transit key (after a
-- change of key provider or of transit key), connected as the workers' role: that role may change
-- the sealed secret and nothing else of an endpoint (docs/operations.md#database-roles).
GRANT UPDATE (secret_ct) ON webhook_endpoints TO folio_vault_worker;
