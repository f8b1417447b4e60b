// Debian's SoftHSM2 as the PKCS#11 token of development and the tests (`apt install softhsm2`):
// a configuration and token directory of our own (SOFTHSM2_CONF), tokens made with softhsm2-util.
// SoftHSM reads SOFTHSM2_CONF, and lists its tokens, once per process, at C_Initialize.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_KEY_LABELS } from '@folio-vault/shared/vault/keys/key-labels';
import { Pkcs11Token } from '@folio-vault/shared/vault/keys/pkcs11-provider';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export interface TSoftHsmToken {
  conf: string;
  label: string;
  pinFile: string;
}

export function softHsmInstalled(): boolean {
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'ignore' });
    return existsSync(SOFTHSM_MODULE);
  } catch {
    return false;
  }
}

/** `dir`'s SoftHSM2 configuration (written when missing), its token directory under `dir/tokens`. */
export function softHsmConf(dir: string): string {
  const conf = join(resolve(dir), 'softhsm2.conf');
  if (!existsSync(conf)) {
    mkdirSync(join(resolve(dir), 'tokens'), { recursive: true, mode: 0o700 });
    writeFileSync(conf, `directories.tokendir = ${join(resolve(dir), 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  }
  return conf;
}

/** A new token labelled `label` in `dir`, its user PIN random and in `dir/<label>.pin` (0600). */
export function initSoftHsmToken(dir: string, label: string): TSoftHsmToken {
  const conf = softHsmConf(dir);
  const pin = randomBytes(8).toString('hex');
  const pinFile = join(resolve(dir), `${label}.pin`);
  writeFileSync(pinFile, `${pin}\n`, { mode: 0o600 });
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--so-pin', randomBytes(8).toString('hex'), '--pin', pin], {
    env: { ...process.env, SOFTHSM2_CONF: conf },
    stdio: 'ignore',
  });
  return { conf, label, pinFile };
}

const DEV_TOKEN = 'folio-vault-dev';

/**
 * `npm start` with VAULT_KEY_PROVIDER=pkcs11 and no PKCS11_* settings: a development token under
 * `dataDir/softhsm` with the default key labels, made on the first start and reused after, so the
 * local path runs the same code as an HSM. Answers the settings to merge (none when it does not
 * apply or SoftHSM2 is not installed, and then the start names what is missing).
 */
export function devSoftHsmToken(env: NodeJS.ProcessEnv, dataDir: string, log: (line: string) => void): Record<string, string> {
  if (env.VAULT_KEY_PROVIDER !== 'pkcs11' || env.PKCS11_MODULE || env.PKCS11_TOKEN_LABEL || env.PKCS11_PIN_FILE) return {};
  if (!softHsmInstalled()) {
    log('VAULT_KEY_PROVIDER=pkcs11 without PKCS11_* settings: install Debian\'s softhsm2 for a development token, or set PKCS11_MODULE, PKCS11_TOKEN_LABEL and PKCS11_PIN_FILE');
    return {};
  }
  const dir = join(dataDir, 'softhsm');
  const pinFile = join(resolve(dir), `${DEV_TOKEN}.pin`);
  const existed = existsSync(pinFile) && readFileSync(pinFile, 'utf8').trim() !== '';
  const token = existed ? { conf: softHsmConf(dir), label: DEV_TOKEN, pinFile } : initSoftHsmToken(dir, DEV_TOKEN);
  // Read by the library at C_Initialize, in this process (npm start's worker) and its children.
  process.env.SOFTHSM2_CONF = token.conf;
  const opened = Pkcs11Token.open({ module: SOFTHSM_MODULE, tokenLabel: token.label, pinFile: token.pinFile, labels: DEFAULT_KEY_LABELS });
  let created: string[];
  try {
    created = opened.ensureKeys(DEFAULT_KEY_LABELS).filter((key) => key.created).map((key) => key.label);
  } finally {
    opened.close();
  }
  log(
    `development PKCS#11 token ${DEV_TOKEN} (SoftHSM2) ${existed ? 'reused from' : 'created in'} ${dir}` +
      (created.length ? `; keys created: ${created.join(', ')}` : ''),
  );
  return { PKCS11_MODULE: SOFTHSM_MODULE, PKCS11_TOKEN_LABEL: token.label, PKCS11_PIN_FILE: token.pinFile, SOFTHSM2_CONF: token.conf };
}
