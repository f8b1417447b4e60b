// The API's side of "jobs only the API can ask for" (docs/security.md#jobs-only-the-api-can-ask-for):
// every vault job it enqueues is signed here with its job signing key, valid for the request's wait
// and a margin; and the one answer to a job that ended without the vault keys.

import { AppError } from '@folio-vault/shared/errors';
import type { TJobName, TJobPayload } from '@folio-vault/shared/jobs/registry';
import { JOB_SIGNATURE_MARGIN_MS, signJob, type TJobSigner } from '@folio-vault/shared/vault/job-signature';
import { KeysUnavailableError } from '@folio-vault/shared/vault/keys/key-provider';
import type { TSignatureFields } from '@folio-vault/shared/vault/vault-job-common';

/** A vault job's payload as the API writes it, before signing fills in the signature fields. */
export type TUnsignedPayload<N extends TJobName> = Omit<TJobPayload<N>, TSignatureFields>;

/** `payload` signed for job `name`; 503 when the job signing key cannot be used right now (its HSM does not answer). */
export async function signedPayload<N extends TJobName>(signer: TJobSigner, name: N, payload: TUnsignedPayload<N>, waitMs: number): Promise<TJobPayload<N>> {
  try {
    return (await signJob(signer, name, payload, waitMs + JOB_SIGNATURE_MARGIN_MS)) as TJobPayload<N>;
  } catch (error) {
    if (error instanceof KeysUnavailableError) throw AppError.unavailable("The API's job signing key cannot be used right now; retry shortly.", 5).withCause(error);
    throw error;
  }
}

/** The answer to a job that ended without the vault keys (vault-job-common.ts ZKeysUnavailable). */
export function keysUnavailable(): AppError {
  return AppError.unavailable('The vault keys cannot be used right now; retry shortly.', 5);
}
