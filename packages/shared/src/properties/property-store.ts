// Every statement on the `properties` table. A property is imported with the ledger and read by the
// listing, exports, night audits and the vault's gateway-mode check, each in one round trip: the
// profile (a handful of columns of one row by primary key) serves the first three.

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import type { TProperty } from '../ledger/schemas.js';
import type { TTokenizationMode } from '../vault/schemas.js';
import type { TElectronicAddress, TPostalAddress, TPropertyTax } from '../ledger/invoice-fields.js';

type TDb = TPgPool | PoolClient;

export interface TPropertyProfile {
  name: string;
  address: string | null;
  currency: string;
  timezone: string;
  language: string | null;
  /** The hotel's own tax id and contact details, for a document's header. */
  tax_id: string | null;
  phone: string | null;
  email: string | null;
  website: string | null;
}

export async function upsertProperty(client: PoolClient, property: TProperty): Promise<void> {
  await client.query(
    `INSERT INTO properties (id, name, address, currency, timezone, language, gateway_mode, night_audit_time, tax_id, phone, email, website,
        legal_name, vat_id, company_id, postal_address, iban, electronic_address, taxes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, address = EXCLUDED.address, currency = EXCLUDED.currency,
       timezone = EXCLUDED.timezone, language = EXCLUDED.language, gateway_mode = EXCLUDED.gateway_mode,
       night_audit_time = EXCLUDED.night_audit_time, tax_id = EXCLUDED.tax_id, phone = EXCLUDED.phone,
       email = EXCLUDED.email, website = EXCLUDED.website, legal_name = EXCLUDED.legal_name, vat_id = EXCLUDED.vat_id,
       company_id = EXCLUDED.company_id, postal_address = EXCLUDED.postal_address, iban = EXCLUDED.iban,
       electronic_address = EXCLUDED.electronic_address, taxes = EXCLUDED.taxes, updated_at = now()`,
    [
      property.id, property.name, property.address ?? null, property.currency, property.timezone, property.language ?? null, property.gatewayMode,
      property.nightAuditTime ?? null, property.taxId ?? null, property.phone ?? null, property.email ?? null, property.website ?? null,
      property.legalName ?? null, property.vatId ?? null, property.companyId ?? null, jsonOrNull(property.postalAddress), property.iban ?? null,
      jsonOrNull(property.electronicAddress), jsonOrNull(property.taxes),
    ],
  );
}

const jsonOrNull = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/**
 * What the listing, a document and a night audit read of the property, its currency without the
 * padding of char(3); undefined before the property is imported.
 */
export async function findPropertyProfile(db: TDb, propertyId: string): Promise<TPropertyProfile | undefined> {
  const result = await db.query<TPropertyProfile>('SELECT name, address, currency, timezone, language, tax_id, phone, email, website FROM properties WHERE id = $1', [propertyId]);
  const row = result.rows[0];
  return row && { ...row, currency: row.currency.trim() };
}

/** The property as an invoice's seller reads it (docs/fiscal-documents.md#issuing). */
export interface TPropertySellerRow extends TPropertyProfile {
  legal_name: string | null;
  vat_id: string | null;
  company_id: string | null;
  postal_address: TPostalAddress | null;
  iban: string | null;
  electronic_address: TElectronicAddress | null;
  taxes: TPropertyTax[] | null;
}

export async function findPropertySeller(db: TDb, propertyId: string): Promise<TPropertySellerRow | undefined> {
  const result = await db.query<TPropertySellerRow>(
    `SELECT name, address, currency, timezone, language, tax_id, phone, email, website, legal_name, vat_id, company_id, postal_address, iban,
            electronic_address, taxes
       FROM properties WHERE id = $1`,
    [propertyId],
  );
  const row = result.rows[0];
  return row && { ...row, currency: row.currency.trim() };
}

export async function findPropertyGatewayMode(db: TDb, propertyId: string): Promise<TTokenizationMode | undefined> {
  const result = await db.query<{ gateway_mode: TTokenizationMode }>('SELECT gateway_mode FROM properties WHERE id = $1', [propertyId]);
  return result.rows[0]?.gateway_mode;
}

/** Every property with what its night-audit schedule needs (night_audit_time null: none). */
export async function listPropertySchedules(db: TDb): Promise<Array<{ id: string; timezone: string; night_audit_time: string | null }>> {
  const result = await db.query<{ id: string; timezone: string; night_audit_time: string | null }>('SELECT id, timezone, night_audit_time FROM properties');
  return result.rows;
}
