// What a card record is bound to (docs/security.md#a-record-names-its-property): the associated
// data of its wrapped data key (`dek:` before it) and of each of its ciphertexts (`:<field>` after
// it, and `:cvv` for a held CVV). Binding 2 names property, mode and token id, so a record copied
// or moved into another row, mode or property does not open; binding 1, what records were sealed
// with before, names mode and token id only. Column `record_binding` says which a record has; the
// vault sweep and `npm run keys:rotate` re-bind the binding-1 records (record-passes.ts).

import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';

/** The binding new records are sealed with. */
export const RECORD_BINDING = 2;

/** A record as its associated data names it: its row's id, property and binding. */
export interface TRecordRef {
  id: string;
  property_id: string;
  record_binding: number;
}

export function recordAad(mode: TTokenizationMode, record: TRecordRef): string {
  return record.record_binding === 1 ? `${mode}:${record.id}` : `${record.property_id}:${mode}:${record.id}`;
}
