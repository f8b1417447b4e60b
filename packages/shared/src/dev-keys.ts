// Development convenience (docs/settings.md): keys that are not set are generated once into a
// local file and reused on the next start, so `npm ci && npm start` works with no set-up.
// Production never gets here: there the config refuses to start without real keys.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { NAMES_BY_ROLE, type TProcessRole } from './config.js';
import { parseKeyring } from './vault/crypto/keyring.js';
import { publicKeysSetting } from './vault/crypto/transit.js';
import { jobVerifyKeysSetting, softwareJobSigner } from './vault/job-signature.js';

/** Where the generated development keys are kept (relative to the working directory). */
export const DEV_KEYS_FILE = '.data/dev-keys.json';

/** The `local` key provider's keys: handed out only when VAULT_KEY_PROVIDER is `local`. */
const LOCAL_KEYS: ReadonlyArray<string> = ['VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY', 'VAULT_JOB_SIGNING_KEY'];

const GENERATED = {
  JWT_SECRET: () => randomBytes(48).toString('base64url'),
  VAULT_KEK_TEST: () => `dev-test-1:${randomBytes(32).toString('base64')}`,
  VAULT_KEK_LIVE: () => `dev-live-1:${randomBytes(32).toString('base64')}`,
  VAULT_FINGERPRINT_KEY: () => randomBytes(32).toString('base64'),
  VAULT_TRANSIT_KEY: () => `dev-transit-1:${randomBytes(32).toString('base64')}`,
  VAULT_JOB_SIGNING_KEY: () => `dev-job-signing-1:${randomBytes(32).toString('base64')}`,
  EXPORT_LINK_KEY: () => randomBytes(32).toString('base64'),
} as const;

type TDevKeyName = keyof typeof GENERATED;
/** The settings generated outside production (docs/settings.md says so of each). */
export const DEV_KEY_NAMES = Object.keys(GENERATED) as ReadonlyArray<TDevKeyName>;


export function withDevKeys(
  env: NodeJS.ProcessEnv,
  options: { file?: string; log?: (line: string) => void; role?: TProcessRole } = {},
): NodeJS.ProcessEnv {
  if (env.NODE_ENV === 'production') return env;
  const file = options.file ?? DEV_KEYS_FILE;
  let stored: Partial<Record<TDevKeyName, string>> = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<TDevKeyName, string>>;
    } catch {
      throw new Error(`${file} is not valid JSON; fix it or delete it to generate new development keys`);
    }
  }
  const merged: NodeJS.ProcessEnv = { ...env };
  const generated: string[] = [];
  const used: string[] = [];
  /** A key of the file, generated into it when missing (the other side's public half is derived from it). */
  const storedKey = (name: 'VAULT_TRANSIT_KEY' | 'VAULT_JOB_SIGNING_KEY'): string => {
    if (!stored[name]) {
      stored[name] = GENERATED[name]();
      generated.push(name);
    }
    return stored[name];
  };
  // A role is handed only the keys its config keeps (config.ts NAMES_BY_ROLE): the API never sees a
  // key-encryption key, the worker no JWT secret.
  const role = options.role ?? 'all';
  const needed: ReadonlyArray<string> = NAMES_BY_ROLE[role];
  const localProvider = (env.VAULT_KEY_PROVIDER ?? 'local') === 'local';
  for (const name of Object.keys(GENERATED) as TDevKeyName[]) {
    if (env[name]) continue;
    // Keys in an HSM or in components: no development key stands in for them.
    if (LOCAL_KEYS.includes(name) && !localProvider) continue;
    // A verifier configured from a public key or JWKS must not be shadowed by a dev secret.
    if (name === 'JWT_SECRET' && (env.JWT_PUBLIC_KEY || env.JWT_JWKS_URL)) continue;
    // Every key goes into the file, so an API and a worker started apart share one transit key.
    if (!stored[name]) {
      stored[name] = GENERATED[name]();
      generated.push(name);
    }
    if (!needed.includes(name)) continue;
    merged[name] = stored[name];
    used.push(name);
  }
  // The API seals to the development transit key's public half (a worker with `pkcs11` or
  // `components` keys has its own: set VAULT_TRANSIT_PUBLIC_KEYS from `npm run keys:public`).
  if (role !== 'worker' && !env.VAULT_TRANSIT_PUBLIC_KEYS && (role === 'api' || localProvider)) {
    merged.VAULT_TRANSIT_PUBLIC_KEYS = publicKeysSetting(parseKeyring(env.VAULT_TRANSIT_KEY ?? storedKey('VAULT_TRANSIT_KEY')));
    used.push('VAULT_TRANSIT_PUBLIC_KEYS');
  }
  // Likewise a worker checks jobs with the development signing key's public half (an API with
  // `pkcs11` or `components` keys has its own: set VAULT_JOB_VERIFY_KEYS from `npm run keys:public`).
  if (role !== 'api' && !env.VAULT_JOB_VERIFY_KEYS && (role === 'worker' || localProvider)) {
    const signing = parseKeyring(env.VAULT_JOB_SIGNING_KEY ?? storedKey('VAULT_JOB_SIGNING_KEY'));
    merged.VAULT_JOB_VERIFY_KEYS = jobVerifyKeysSetting(softwareJobSigner(signing.activeId, signing.keys.get(signing.activeId)!));
    used.push('VAULT_JOB_VERIFY_KEYS');
  }
  if (generated.length > 0) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600); // mode applies only when the file is created
  }
  if (used.length > 0) {
    options.log?.(
      `development keys for ${used.join(', ')} ${generated.length ? 'generated into' : 'read from'} ${file}; ` +
        'NODE_ENV=production refuses to start without real ones',
    );
  }
  return merged;
}
