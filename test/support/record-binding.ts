// Records as they were sealed before migration 017 (binding 1: associated data naming mode and
// token id, not the property), made from records the service wrote, for the tests of re-binding.

import type pg from 'pg';
import { openField, sealField } from '@folio-vault/shared/vault/crypto/envelope';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { recordAad } from '@folio-vault/worker/vault/record-binding';

interface TStoredRecord {
  id: string;
  property_id: string;
  record_binding: number;
  kek_id: string;
  wrapped_dek: Buffer;
  pan_ct: Buffer;
  cardholder_name_ct: Buffer;
  billing_details_ct: Buffer | null;
  cvv_ct: Buffer | null;
}

/** Reads each record and its held CVV, and writes them back sealed with binding 1, all in one transaction. */
export async function sealTheOldWay(pool: pg.Pool, keys: TKeyProvider, mode: TTokenizationMode, ids: string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<TStoredRecord>(
      `SELECT c.id, c.property_id, c.record_binding, c.kek_id, c.wrapped_dek, c.pan_ct, c.cardholder_name_ct, c.billing_details_ct, h.cvv_ct
         FROM vault_${mode}.cards c LEFT JOIN vault_${mode}.held_cvvs h ON h.token_id = c.id
        WHERE c.id = ANY($1::uuid[]) FOR UPDATE OF c`,
      [ids],
    );
    if (rows.length !== ids.length) throw new Error(`found ${rows.length} of ${ids.length} records`);
    for (const row of rows) {
      const [now, old] = [recordAad(mode, row), recordAad(mode, { ...row, record_binding: 1 })];
      const dataKey = await keys.unwrapDataKey(mode, { kekId: row.kek_id, wrapped: row.wrapped_dek }, now);
      const reseal = (sealed: Buffer, field: string) => sealField(dataKey, openField(dataKey, sealed, `${now}:${field}`), `${old}:${field}`);
      const wrapped = await keys.wrapDataKey(mode, dataKey, old);
      await client.query(
        `UPDATE vault_${mode}.cards SET kek_id = $2, wrapped_dek = $3, pan_ct = $4, cardholder_name_ct = $5, billing_details_ct = $6, record_binding = 1 WHERE id = $1`,
        [row.id, wrapped.kekId, wrapped.wrapped, reseal(row.pan_ct, 'pan'), reseal(row.cardholder_name_ct, 'cardholder_name'),
          row.billing_details_ct ? reseal(row.billing_details_ct, 'billing_details') : null],
      );
      if (row.cvv_ct) await client.query(`UPDATE vault_${mode}.held_cvvs SET cvv_ct = $2 WHERE token_id = $1`, [row.id, reseal(row.cvv_ct, 'cvv')]);
      dataKey.fill(0);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Opens a record (and its held CVV) under the associated data its row names now; answers its PAN and CVV. */
export async function openStored(pool: pg.Pool, keys: TKeyProvider, mode: TTokenizationMode, id: string): Promise<{ binding: number; pan: string; cvv?: string }> {
  const { rows } = await pool.query<TStoredRecord>(
    `SELECT c.id, c.property_id, c.record_binding, c.kek_id, c.wrapped_dek, c.pan_ct, c.cardholder_name_ct, c.billing_details_ct, h.cvv_ct
       FROM vault_${mode}.cards c LEFT JOIN vault_${mode}.held_cvvs h ON h.token_id = c.id WHERE c.id = $1`,
    [id],
  );
  const row = rows[0]!;
  const aad = recordAad(mode, row);
  const dataKey = await keys.unwrapDataKey(mode, { kekId: row.kek_id, wrapped: row.wrapped_dek }, aad);
  try {
    return { binding: row.record_binding, pan: openField(dataKey, row.pan_ct, `${aad}:pan`), ...(row.cvv_ct ? { cvv: openField(dataKey, row.cvv_ct, `${aad}:cvv`) } : {}) };
  } finally {
    dataKey.fill(0);
  }
}
