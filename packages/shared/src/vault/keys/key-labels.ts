// The labels of the vault's keys in a PKCS#11 token (PKCS11_KEY_LABELS): the first of a list is
// active, the others still open what they sealed until `npm run keys:rotate` has moved it. The
// API's job signing key pair (`jobSigning`) is one label: its private and public objects share it.

import { z } from 'zod';

export interface TKeyLabels {
  kekTest: string[];
  kekLive: string[];
  fingerprint: string;
  transit: string[];
  jobSigning: string;
}

export const DEFAULT_KEY_LABELS: TKeyLabels = {
  kekTest: ['folio-kek-test-1'],
  kekLive: ['folio-kek-live-1'],
  fingerprint: 'folio-fingerprint-1',
  transit: ['folio-transit-1'],
  jobSigning: 'folio-job-signing-1',
};

/**
 * Whose keys a token or component set holds: a worker's (the vault keys), an API's (the job
 * signing key alone), or both, for `npm start`'s one process and development.
 */
export type TKeysFor = 'worker' | 'api' | 'all';

const label = z.string().min(1).max(128);
const labels = z.union([label.transform((one) => [one]), z.array(label).min(1)]);

/** PKCS11_KEY_LABELS as written: any part, each list or single label; the rest default. */
export const ZKeyLabels = z
  .object({ kekTest: labels.optional(), kekLive: labels.optional(), fingerprint: label.optional(), transit: labels.optional(), jobSigning: label.optional() })
  .strict()
  .transform((given): TKeyLabels => ({ ...DEFAULT_KEY_LABELS, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) }));
