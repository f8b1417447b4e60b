import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initSoftHsmToken, SOFTHSM_MODULE, softHsmConf, type TSoftHsmToken } from '@folio-vault/dev-services/softhsm';
import { type TKeyLabels, DEFAULT_KEY_LABELS } from '@folio-vault/shared/vault/keys/key-labels';
import { Pkcs11Token } from '@folio-vault/shared/vault/keys/pkcs11-provider';

/**
 * Real PKCS#11 for the tests: Debian's SoftHSM2 (.ci/run installs it). SoftHSM reads SOFTHSM2_CONF
 * and lists its tokens once, at C_Initialize, and a test process hosts many worlds: so each test
 * process gets one configuration and token directory of its own (set before any world opens the
 * library), and each call of `newSoftHsmToken` a token of its own in it (softhsm2-util --init-token)
 * for the commands a test spawns. A token made after C_Initialize stays invisible to this process,
 * so a world whose keys this process opens uses the process's first token with key labels of its own.
 */
export { SOFTHSM_MODULE };

let processToken: TSoftHsmToken | undefined;
let processDir: string | undefined;

/** A new SoftHSM2 token in this process's token directory, with a random PIN in a file of its own. */
export function newSoftHsmToken(): TSoftHsmToken {
  if (!processDir) {
    processDir = mkdtempSync(join(tmpdir(), 'fvt-softhsm-'));
    process.env.SOFTHSM2_CONF = softHsmConf(processDir);
  }
  return initSoftHsmToken(processDir, `fvt-${randomBytes(4).toString('hex')}`);
}

/** The settings of a token, as a worker (or a key command) reads them. */
export function pkcs11Settings(token: TSoftHsmToken, labels: TKeyLabels = DEFAULT_KEY_LABELS): Record<string, string> {
  return {
    VAULT_KEY_PROVIDER: 'pkcs11',
    PKCS11_MODULE: SOFTHSM_MODULE,
    PKCS11_TOKEN_LABEL: token.label,
    PKCS11_PIN_FILE: token.pinFile,
    PKCS11_KEY_LABELS: JSON.stringify(labels),
    SOFTHSM2_CONF: token.conf,
  };
}

/** Creates the keys `labels` names in `token`, as `npm run keys:hsm-init` does. */
export function createTokenKeys(token: TSoftHsmToken, labels: TKeyLabels): void {
  const opened = Pkcs11Token.open({ module: SOFTHSM_MODULE, tokenLabel: token.label, pinFile: token.pinFile, labels });
  try {
    opened.ensureKeys(labels);
  } finally {
    opened.close();
  }
}

/**
 * A world's PKCS#11 settings: keys of its own (labels with a random prefix) in this process's
 * token, which this process can open whenever the world is made.
 */
export function worldPkcs11Env(): Record<string, string> {
  processToken ??= newSoftHsmToken();
  const prefix = `w${randomBytes(4).toString('hex')}`;
  const labels: TKeyLabels = {
    kekTest: [`${prefix}-kek-test-1`],
    kekLive: [`${prefix}-kek-live-1`],
    fingerprint: `${prefix}-fingerprint-1`,
    transit: [`${prefix}-transit-1`],
    jobSigning: `${prefix}-job-signing-1`,
  };
  createTokenKeys(processToken, labels);
  return pkcs11Settings(processToken, labels);
}
