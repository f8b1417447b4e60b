// Vault keys inside a PKCS#11 token (an HSM; Debian's SoftHSM2 in development and tests). The KEKs
// are AES-256 keys and the fingerprint and transit keys 32-byte generic secrets, all created
// sensitive and non-extractable (keys:hsm-init): no call returns their value. Data keys are sealed
// and opened with CKM_AES_GCM through C_Encrypt/C_Decrypt, fingerprints are CKM_SHA256_HMAC through
// C_Sign — inside the token. The worker's transit private key (X25519, which tokens rarely do) is
// derived at start as HMAC(transit key, a fixed label) inside the token and lives only in the
// worker's memory. The API's job signing key is an Ed25519 key pair (CKM_EC_EDWARDS_KEY_PAIR_GEN),
// its private half sensitive and non-extractable, signing with CKM_EDDSA inside the token; in
// production it lives in a token of the API's own that holds nothing else.
//
// One C_Initialize per library and process (OS locking, so the async calls may run on libuv's
// threads at once), a small pool of sessions (a session runs one operation at a time), the user
// logged in once, keys found by label once at start. The *Async calls run on libuv's thread pool:
// the event loop never waits on the token.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Pkcs11Types from 'pkcs11js';
import type { TTokenizationMode } from '../schemas.js';
import type { TKeyring } from '../crypto/keyring.js';
import type { TJobSigner } from '../job-signature.js';
import { KeySetupError, KeysUnavailableError, type TKeyProvider } from './key-provider.js';
import type { TKeyLabels, TKeysFor } from './key-labels.js';

type TBinding = typeof Pkcs11Types;
type TLibrary = Pkcs11Types.PKCS11;
type THandle = Pkcs11Types.Handle;

export interface TPkcs11Settings {
  /** PKCS11_MODULE: the library's path. */
  module: string;
  /** PKCS11_TOKEN_LABEL */
  tokenLabel: string;
  /** PKCS11_PIN_FILE: the user PIN is read from it, never logged. */
  pinFile: string;
  labels: TKeyLabels;
}

/** A start refused by the token's settings or state: the message is the one line the start prints. */
export class Pkcs11SetupError extends KeySetupError {
  constructor(message: string) {
    super(message);
    this.name = 'Pkcs11SetupError';
  }
}

/**
 * The user PIN in PKCS11_PIN_FILE. A path that is not a readable regular file (missing, a folder,
 * not readable by this user) stops the start with its one line, never a stack.
 */
export function readPinFile(path: string): string {
  let file: Stats;
  try {
    file = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Pkcs11SetupError(`PKCS11_PIN_FILE: ${path} ${code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${code})`}`);
  }
  if (!file.isFile()) throw new Pkcs11SetupError(`PKCS11_PIN_FILE: ${path} is not a regular file`);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new Pkcs11SetupError(`PKCS11_PIN_FILE: ${path} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
}

const SESSIONS = 8;
const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;
/** aes-gcm.ts's layout version: a token-wrapped key is stored as one wrapped in software. */
const SEALED_VERSION = 1;
const TRANSIT_DERIVATION = 'folio-vault transit x25519 v1';
// PKCS#11 3.0's Edwards-curve values, which pkcs11js does not name.
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;
const CKK_EC_EDWARDS = 0x40;
/** CKA_EC_PARAMS of Ed25519: the DER of its object identifier, 1.3.101.112. */
const ED25519_PARAMS = Buffer.from('06032b6570', 'hex');

/** The kinds of key the token holds: AES KEKs, HMAC secrets, and the Ed25519 job signing key pair. */
export type TTokenKeyKind = 'aes' | 'hmac' | 'ed25519';

function loadBinding(): TBinding {
  try {
    return createRequire(import.meta.url)('pkcs11js') as TBinding;
  } catch {
    throw new Pkcs11SetupError(
      'VAULT_KEY_PROVIDER=pkcs11: the pkcs11js module is not installed (an optional dependency built by node-gyp; install python3, make and g++, then npm ci)',
    );
  }
}

// One initialized library per module path in this process, shared by every open token.
const libraries = new Map<string, { library: TLibrary; users: number }>();

function acquireLibrary(binding: TBinding, path: string): TLibrary {
  const known = libraries.get(path);
  if (known) {
    known.users += 1;
    return known.library;
  }
  if (!existsSync(path)) throw new Pkcs11SetupError(`PKCS11_MODULE: ${path} does not exist (Debian's SoftHSM2: apt install softhsm2, /usr/lib/softhsm/libsofthsm2.so)`);
  const library = new binding.PKCS11();
  try {
    library.load(path);
    library.C_Initialize({ flags: binding.CKF_OS_LOCKING_OK });
  } catch (error) {
    throw new Pkcs11SetupError(`PKCS11_MODULE: ${path} could not be loaded and initialized (${(error as Error).message})`);
  }
  libraries.set(path, { library, users: 1 });
  return library;
}

function releaseLibrary(path: string): void {
  const known = libraries.get(path);
  if (!known) return;
  known.users -= 1;
  if (known.users > 0) return;
  libraries.delete(path);
  try {
    known.library.C_Finalize();
  } finally {
    known.library.close();
  }
}

/** A logged-in token: a pool of sessions and the operations the vault needs, each on one session. */
export class Pkcs11Token {
  private readonly idle: THandle[];
  private readonly waiting: Array<(session: THandle) => void> = [];
  private closed = false;

  private constructor(
    readonly binding: TBinding,
    readonly library: TLibrary,
    private readonly settings: TPkcs11Settings,
    private readonly slot: THandle,
    private readonly sessions: THandle[],
  ) {
    this.idle = [...sessions];
  }

  static open(settings: TPkcs11Settings): Pkcs11Token {
    const binding = loadBinding();
    const library = acquireLibrary(binding, settings.module);
    const sessions: THandle[] = [];
    try {
      const labels: string[] = [];
      let slot: THandle | undefined;
      for (const candidate of library.C_GetSlotList(true)) {
        const label = library.C_GetTokenInfo(candidate).label.trim();
        labels.push(label);
        if (label === settings.tokenLabel) slot = candidate;
      }
      if (!slot) {
        throw new Pkcs11SetupError(`PKCS11_TOKEN_LABEL: no token "${settings.tokenLabel}" in ${settings.module} (tokens: ${labels.filter(Boolean).join(', ') || 'none'})`);
      }
      const pin = readPinFile(settings.pinFile);
      for (let i = 0; i < SESSIONS; i += 1) sessions.push(library.C_OpenSession(slot, binding.CKF_SERIAL_SESSION | binding.CKF_RW_SESSION));
      try {
        library.C_Login(sessions[0]!, binding.CKU_USER, pin);
      } catch (error) {
        // Logged in already by another user of this library in the process: the state is shared.
        if ((error as { code?: number }).code !== binding.CKR_USER_ALREADY_LOGGED_IN) {
          throw new Pkcs11SetupError(`PKCS11_PIN_FILE: token "${settings.tokenLabel}" refused the PIN (${(error as Error).message})`);
        }
      }
      return new Pkcs11Token(binding, library, settings, slot, sessions);
    } catch (error) {
      for (const session of sessions) library.C_CloseSession(session);
      releaseLibrary(settings.module);
      throw error;
    }
  }

  get label(): string {
    return this.settings.tokenLabel;
  }

  private async withSession<T>(work: (session: THandle) => Promise<T>): Promise<T> {
    const session = this.idle.pop() ?? (await new Promise<THandle>((resolve) => this.waiting.push(resolve)));
    try {
      return await work(session);
    } finally {
      const next = this.waiting.shift();
      if (next) next(session);
      else this.idle.push(session);
    }
  }

  /** The handles of the objects of `objectClass` (with `label`, when given). */
  private findObjects(objectClass: number, label?: string): THandle[] {
    const { binding, library } = this;
    const session = this.sessions[0]!;
    library.C_FindObjectsInit(session, [
      { type: binding.CKA_CLASS, value: objectClass },
      ...(label === undefined ? [] : [{ type: binding.CKA_LABEL, value: label }]),
    ]);
    try {
      return library.C_FindObjects(session, 1000);
    } finally {
      library.C_FindObjectsFinal(session);
    }
  }

  /** The handle of the secret key labelled `label`, or undefined. */
  findKey(label: string): THandle | undefined {
    return this.findObjects(this.binding.CKO_SECRET_KEY, label)[0];
  }

  /** The private and public handles of the key pair labelled `label`, or undefined when either is missing. */
  findKeyPair(label: string): { privateKey: THandle; publicKey: THandle } | undefined {
    const privateKey = this.findObjects(this.binding.CKO_PRIVATE_KEY, label)[0];
    const publicKey = this.findObjects(this.binding.CKO_PUBLIC_KEY, label)[0];
    return privateKey && publicKey ? { privateKey, publicKey } : undefined;
  }

  /** The labels of every secret key in the token (the vault's keys are all secret keys; the job signing key is not). */
  secretKeyLabels(): string[] {
    return this.findObjects(this.binding.CKO_SECRET_KEY).map((handle) => String((this.attributes(handle, [this.binding.CKA_LABEL])[0]!.value as Buffer).toString('utf8')));
  }

  /** Reads attributes of a key (C_GetAttributeValue); a sensitive key's CKA_VALUE throws CKR_ATTRIBUTE_SENSITIVE. */
  attributes(handle: THandle, types: number[]): Pkcs11Types.Attribute[] {
    return this.library.C_GetAttributeValue(this.sessions[0]!, handle, types.map((type) => ({ type })));
  }

  /** Creates a sensitive, non-extractable AES-256 key (a KEK) or 32-byte HMAC secret in the token. */
  createKey(label: string, kind: 'aes' | 'hmac'): THandle {
    const { binding: b, library } = this;
    const aes = kind === 'aes';
    return library.C_GenerateKey(this.sessions[0]!, { mechanism: aes ? b.CKM_AES_KEY_GEN : b.CKM_GENERIC_SECRET_KEY_GEN, parameter: undefined }, [
      { type: b.CKA_CLASS, value: b.CKO_SECRET_KEY },
      { type: b.CKA_KEY_TYPE, value: aes ? b.CKK_AES : b.CKK_GENERIC_SECRET },
      { type: b.CKA_LABEL, value: label },
      { type: b.CKA_VALUE_LEN, value: 32 },
      { type: b.CKA_TOKEN, value: true },
      { type: b.CKA_PRIVATE, value: true },
      { type: b.CKA_SENSITIVE, value: true },
      { type: b.CKA_EXTRACTABLE, value: false },
      { type: b.CKA_ENCRYPT, value: aes },
      { type: b.CKA_DECRYPT, value: aes },
      { type: b.CKA_SIGN, value: !aes },
      { type: b.CKA_VERIFY, value: !aes },
    ]);
  }

  /**
   * Creates the Ed25519 job signing key pair: the private half sensitive and non-extractable, only
   * for signing; the public half readable (its CKA_EC_POINT is VAULT_JOB_VERIFY_KEYS's value).
   */
  createSigningKeyPair(label: string): { privateKey: THandle; publicKey: THandle } {
    const { binding: b, library } = this;
    return library.C_GenerateKeyPair(
      this.sessions[0]!,
      { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN, parameter: undefined },
      [
        { type: b.CKA_CLASS, value: b.CKO_PUBLIC_KEY },
        { type: b.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
        { type: b.CKA_LABEL, value: label },
        { type: b.CKA_EC_PARAMS, value: ED25519_PARAMS },
        { type: b.CKA_TOKEN, value: true },
        { type: b.CKA_VERIFY, value: true },
      ],
      [
        { type: b.CKA_CLASS, value: b.CKO_PRIVATE_KEY },
        { type: b.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
        { type: b.CKA_LABEL, value: label },
        { type: b.CKA_TOKEN, value: true },
        { type: b.CKA_PRIVATE, value: true },
        { type: b.CKA_SENSITIVE, value: true },
        { type: b.CKA_EXTRACTABLE, value: false },
        { type: b.CKA_SIGN, value: true },
      ],
    );
  }

  /**
   * Every key `labels` names for `holder`, created when missing (as `npm run keys:hsm-init` does):
   * a worker's KEKs as AES keys and fingerprint and transit keys as HMAC secrets, an API's job
   * signing key pair. Says which were there already; `handle` is a key pair's private half.
   */
  ensureKeys(labels: TKeyLabels, holder: TKeysFor = 'all'): Array<{ label: string; kind: TTokenKeyKind; created: boolean; handle: THandle }> {
    const wanted: Array<[string, TTokenKeyKind]> = [
      ...(holder === 'api'
        ? []
        : [
            ...[...labels.kekTest, ...labels.kekLive].map((label): [string, 'aes'] => [label, 'aes']),
            [labels.fingerprint, 'hmac'] as [string, 'hmac'],
            ...labels.transit.map((label): [string, 'hmac'] => [label, 'hmac']),
          ]),
      ...(holder === 'worker' ? [] : [[labels.jobSigning, 'ed25519'] as [string, 'ed25519']]),
    ];
    return wanted.map(([label, kind]) => {
      if (kind === 'ed25519') {
        const found = this.findKeyPair(label);
        return { label, kind, created: !found, handle: (found ?? this.createSigningKeyPair(label)).privateKey };
      }
      const found = this.findKey(label);
      return { label, kind, created: !found, handle: found ?? this.createKey(label, kind) };
    });
  }

  /** The raw 32-byte Ed25519 public key of a key pair's public half (its CKA_EC_POINT, a DER octet string). */
  ed25519PublicKey(publicKey: THandle): Buffer {
    const point = this.attributes(publicKey, [this.binding.CKA_EC_POINT])[0]!.value as Buffer;
    return Buffer.from(point.subarray(point.length - 32));
  }

  /** An Ed25519 signature (CKM_EDDSA) with a key pair's private half, inside the token. */
  signEd25519(privateKey: THandle, message: Buffer): Promise<Buffer> {
    return this.withSession(async (session) => {
      this.library.C_SignInit(session, { mechanism: CKM_EDDSA, parameter: undefined }, privateKey);
      return Buffer.from(await this.library.C_SignAsync(session, message, Buffer.alloc(64)));
    });
  }

  /** AES-256-GCM inside the token; answers aes-gcm.ts's layout: version | iv | tag | ciphertext. */
  sealGcm(key: THandle, plaintext: Buffer, aad: string): Promise<Buffer> {
    const iv = randomBytes(GCM_IV_BYTES);
    return this.withSession(async (session) => {
      this.library.C_EncryptInit(session, this.gcm(iv, aad), key);
      const out = await this.library.C_EncryptAsync(session, plaintext, Buffer.alloc(plaintext.length + GCM_TAG_BYTES));
      const ct = out.subarray(0, out.length - GCM_TAG_BYTES);
      return Buffer.concat([Buffer.from([SEALED_VERSION]), iv, out.subarray(out.length - GCM_TAG_BYTES), ct]);
    });
  }

  openGcm(key: THandle, sealed: Buffer, aad: string): Promise<Buffer> {
    if (sealed.length < 1 + GCM_IV_BYTES + GCM_TAG_BYTES || sealed[0] !== SEALED_VERSION) throw new Error('sealed data has an unknown layout');
    const iv = sealed.subarray(1, 1 + GCM_IV_BYTES);
    const tag = sealed.subarray(1 + GCM_IV_BYTES, 1 + GCM_IV_BYTES + GCM_TAG_BYTES);
    const ct = sealed.subarray(1 + GCM_IV_BYTES + GCM_TAG_BYTES);
    return this.withSession(async (session) => {
      this.library.C_DecryptInit(session, this.gcm(iv, aad), key);
      return Buffer.from(await this.library.C_DecryptAsync(session, Buffer.concat([ct, tag]), Buffer.alloc(ct.length + GCM_TAG_BYTES)));
    });
  }

  hmac(key: THandle, message: Buffer): Promise<Buffer> {
    return this.withSession(async (session) => {
      this.library.C_SignInit(session, { mechanism: this.binding.CKM_SHA256_HMAC, parameter: undefined }, key);
      return Buffer.from(await this.library.C_SignAsync(session, message, Buffer.alloc(32)));
    });
  }

  /**
   * The key's check value: for an AES key the first 3 bytes of AES-ECB(key, 16 zero bytes), as for
   * components; for an HMAC secret the first 3 bytes of HMAC-SHA256(key, 16 zero bytes). Hex.
   */
  checkValue(key: THandle, kind: 'aes' | 'hmac'): Promise<string> {
    if (kind === 'hmac') return this.hmac(key, Buffer.alloc(16)).then((mac) => mac.subarray(0, 3).toString('hex'));
    return this.withSession(async (session) => {
      this.library.C_EncryptInit(session, { mechanism: this.binding.CKM_AES_ECB, parameter: undefined }, key);
      return Buffer.from(await this.library.C_EncryptAsync(session, Buffer.alloc(16), Buffer.alloc(16))).subarray(0, 3).toString('hex');
    });
  }

  /** The token answers: its information can be read (a token whose store is gone cannot). */
  async ping(): Promise<void> {
    this.library.C_GetTokenInfo(this.slot);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const session of this.sessions) {
      try {
        this.library.C_CloseSession(session);
      } catch {
        // The token went away; the library is finalized next.
      }
    }
    releaseLibrary(this.settings.module);
  }

  private gcm(iv: Buffer, aad: string): Pkcs11Types.Mechanism {
    const parameter: Pkcs11Types.AesGCM = { type: this.binding.CK_PARAMS_AES_GCM, iv, ivBits: GCM_IV_BYTES * 8, aad: Buffer.from(aad, 'utf8'), tagBits: GCM_TAG_BYTES * 8 };
    return { mechanism: this.binding.CKM_AES_GCM, parameter };
  }
}

function requireKey(token: Pkcs11Token, label: string): THandle {
  const handle = token.findKey(label);
  if (!handle) throw new Pkcs11SetupError(`PKCS11_KEY_LABELS: no key "${label}" in token "${token.label}"; create the keys with npm run keys:hsm-init`);
  return handle;
}

/** The worker's transit private key derived inside the token from the transit secret `label`. */
async function transitPrivateKey(token: Pkcs11Token, handle: THandle): Promise<Buffer> {
  return token.hmac(handle, Buffer.from(TRANSIT_DERIVATION, 'utf8'));
}

/** Errors after which the keys are found by label again: the token reloaded its objects (a restart). */
const STALE_HANDLE = ['CKR_OBJECT_HANDLE_INVALID', 'CKR_KEY_HANDLE_INVALID'];

/**
 * One key operation with `token()`. Handles gone stale (the token restarted) are found again
 * (`refind`) and the operation tried once more; a failure with a token that does not answer is
 * KeysUnavailable (retried later), any other failure the operation's own (data that does not open).
 */
function guardedBy(token: () => Pkcs11Token, refind: () => void, tokenLabel: string) {
  return async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      if (STALE_HANDLE.some((code) => (error as Error).message.includes(code))) {
        try {
          refind();
          return await operation();
        } catch {
          // Judged below, with the first error.
        }
      }
      const answers = await token().ping().then(() => true, () => false);
      if (!answers) throw new KeysUnavailableError(`token "${tokenLabel}" does not answer (${(error as Error).message})`);
      throw error;
    }
  };
}

/** The job signer over the key pair `label` of `token()`, found again by `pair()` after a restart. */
function pkcs11JobSigner(token: () => Pkcs11Token, pair: () => { privateKey: THandle; publicKey: THandle }, label: string, guarded: ReturnType<typeof guardedBy>): TJobSigner {
  return {
    keyId: label,
    publicKey: token().ed25519PublicKey(pair().publicKey),
    sign: (message) => guarded(() => token().signEd25519(pair().privateKey, message)),
  };
}

export async function pkcs11KeyProvider(settings: TPkcs11Settings): Promise<TKeyProvider> {
  let token = Pkcs11Token.open(settings);
  try {
    const { labels } = settings;
    const findAll = () => {
      const handles = (list: string[]) => new Map(list.map((label) => [label, requireKey(token, label)]));
      return {
        test: handles(labels.kekTest),
        live: handles(labels.kekLive),
        fingerprint: requireKey(token, labels.fingerprint),
        transit: handles(labels.transit),
        // The API's signing key, when this token holds it too (`npm start`, development).
        jobSigning: token.findKeyPair(labels.jobSigning),
      };
    };
    let keys = findAll();
    const guarded = guardedBy(() => token, () => (keys = findAll()), settings.tokenLabel);
    const transitKeys = new Map<string, Buffer>();
    for (const [label, handle] of keys.transit) transitKeys.set(label, await transitPrivateKey(token, handle));
    const transit: TKeyring = { activeId: labels.transit[0]!, keys: transitKeys };
    const kekOf = (mode: TTokenizationMode, kekId: string) => {
      const handle = keys[mode].get(kekId);
      if (!handle) throw new Error(`key-encryption key ${kekId} is not configured`);
      return handle;
    };
    const signingPair = () => {
      if (!keys.jobSigning) throw new Error(`job signing key "${labels.jobSigning}" is no longer in token "${settings.tokenLabel}"`);
      return keys.jobSigning;
    };
    return {
      kind: 'pkcs11',
      kekIds: { test: labels.kekTest, live: labels.kekLive },
      fingerprintKeyId: labels.fingerprint,
      transitKeys: transit,
      ...(keys.jobSigning ? { jobSigner: pkcs11JobSigner(() => token, signingPair, labels.jobSigning, guarded) } : {}),
      async wrapDataKey(mode, dataKey, aad) {
        const kekId = labels[mode === 'test' ? 'kekTest' : 'kekLive'][0]!;
        return { kekId, wrapped: await guarded(() => token.sealGcm(kekOf(mode, kekId), dataKey, `dek:${aad}`)) };
      },
      unwrapDataKey(mode, wrapped, aad) {
        return guarded(() => token.openGcm(kekOf(mode, wrapped.kekId), wrapped.wrapped, `dek:${aad}`));
      },
      hmac(message) {
        return guarded(() => token.hmac(keys.fingerprint, Buffer.from(message, 'utf8')));
      },
      /**
       * The token answers. When it does not, the library is opened afresh once per check (a token
       * that went away and came back is seen only by a new C_Initialize, and its keys have new
       * handles): the worker's key health check (key-health-reporter.ts) thus recovers it.
       */
      async check() {
        try {
          await token.ping();
        } catch (error) {
          try {
            token.close();
            token = Pkcs11Token.open(settings);
            keys = findAll();
            await token.ping();
          } catch {
            throw error;
          }
        }
      },
      async close() {
        for (const key of transitKeys.values()) key.fill(0);
        token.close();
      },
    };
  } catch (error) {
    token.close();
    throw error;
  }
}

/**
 * The API's view of a token: its job signing key pair and nothing else, and the labels of the
 * secret keys the token also holds (a production API refuses a token that holds any: the vault's
 * keys belong in the workers' token).
 */
export function pkcs11JobSigningKey(settings: TPkcs11Settings): { signer: TJobSigner; vaultKeys: string[]; close(): Promise<void> } {
  const token = Pkcs11Token.open(settings);
  try {
    const label = settings.labels.jobSigning;
    const find = () => {
      const pair = token.findKeyPair(label);
      if (!pair) throw new Pkcs11SetupError(`PKCS11_KEY_LABELS: no job signing key pair "${label}" in token "${token.label}"; create it with npm run keys:hsm-init -- --for api`);
      return pair;
    };
    let pair = find();
    const guarded = guardedBy(() => token, () => (pair = find()), settings.tokenLabel);
    return {
      signer: pkcs11JobSigner(() => token, () => pair, label, guarded),
      vaultKeys: token.secretKeyLabels(),
      async close() {
        token.close();
      },
    };
  } catch (error) {
    token.close();
    throw error;
  }
}
