// The database roles (docs/operations.md#database-roles): the schema's owner (DATABASE_URL) runs
// the migrations; the API and the workers connect as roles of their own, which
// migrations/017_database_roles.sql creates when missing and grants to, table by table.

/** Each process's role name; the migrations name the same roles. */
export const DATABASE_ROLES = { api: 'folio_vault_api', worker: 'folio_vault_worker' } as const;

export type TDatabaseRole = keyof typeof DATABASE_ROLES;

/**
 * The URL a role connects with outside production when its own is not set: the owner's host,
 * port, database and parameters, the role's name as user and no password (the migrations set
 * none), which a server that trusts local connections accepts.
 */
export function roleUrlOf(ownerUrl: string, role: TDatabaseRole): string {
  const url = new URL(ownerUrl);
  url.username = DATABASE_ROLES[role];
  url.password = '';
  return url.toString();
}
