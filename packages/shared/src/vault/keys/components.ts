// Split-knowledge keys for sites without an HSM (PCI DSS 3.6.1.2: "two or more full-length key
// components"). Each key is the XOR of two or more 32-byte components, each in a file of its own
// (one per custodian), checked against the key's check value before anything uses it. The file
// VAULT_KEY_COMPONENTS names describes them:
//   {"kekTest": {"<keyId>": {"components": ["<file>", …], "checkValue": "<6 hex>"}, …},
//    "kekLive": {…}, "fingerprint": {…}, "transit": {…}, "jobSigning": {…}}
// the first key id of each section active; component paths relative to that file. A worker's set
// has the four vault sections; the API's has `jobSigning` alone (the XOR of its components is the
// Ed25519 seed of the key that signs vault jobs); `npm start`'s one set has all five. A problem
// stops the start with one line naming the key, key id and component number — never a key byte.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { KEY_BYTES, type TKeyring } from '../crypto/keyring.js';
import { publicKeysSetting } from '../crypto/transit.js';
import { jobVerifyKeysSetting, softwareJobSigner } from '../job-signature.js';
import { checkValue } from './check-value.js';
import { KeySetupError, type TSoftwareKeys } from './key-provider.js';
import type { TKeysFor } from './key-labels.js';

/** The sections of the vault keys, which a worker's set must have. */
export const VAULT_SECTIONS = ['kekTest', 'kekLive', 'fingerprint', 'transit'] as const;
export const COMPONENT_SECTIONS = [...VAULT_SECTIONS, 'jobSigning'] as const;
export type TComponentSection = (typeof COMPONENT_SECTIONS)[number];

const ZKeyEntry = z.object({ components: z.array(z.string().min(1)), checkValue: z.string().regex(/^[0-9a-fA-F]{6}$/) });
const ZSection = z.record(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/), ZKeyEntry).refine((keys) => Object.keys(keys).length > 0, 'needs at least one key');
const ZComponentsFile = z.object(Object.fromEntries(COMPONENT_SECTIONS.map((name) => [name, ZSection.optional()])) as Record<TComponentSection, z.ZodOptional<typeof ZSection>>);
export type TComponentsFile = z.infer<typeof ZComponentsFile>;

/** A refused component set: `message` is the one line the start prints. */
export class KeyComponentError extends KeySetupError {
  constructor(message: string) {
    super(`VAULT_KEY_COMPONENTS: ${message}`);
    this.name = 'KeyComponentError';
  }
}

function xor(parts: readonly Buffer[]): Buffer {
  const key = Buffer.alloc(KEY_BYTES);
  for (const part of parts) for (let i = 0; i < KEY_BYTES; i += 1) key[i]! ^= part[i]!;
  return key;
}

/** One key rebuilt from its component files, or the line that says which component is wrong. */
function rebuild(section: TComponentSection, keyId: string, entry: z.infer<typeof ZKeyEntry>, base: string): Buffer {
  const expected = entry.checkValue.toLowerCase();
  const where = (n?: number) => `${section} key "${keyId}"${n === undefined ? '' : `, component ${n}`} (check value ${expected})`;
  if (entry.components.length < 2) throw new KeyComponentError(`${where()}: needs at least 2 components, has ${entry.components.length}`);
  const parts = entry.components.map((file, index) => {
    const n = index + 1;
    const path = resolve(base, file);
    if (!existsSync(path)) throw new KeyComponentError(`${where(n)}: file ${path} is missing`);
    const part = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (part.length !== KEY_BYTES) throw new KeyComponentError(`${where(n)}: is not ${KEY_BYTES} bytes of base64`);
    if (part.every((byte) => byte === 0)) throw new KeyComponentError(`${where(n)}: is all zeros`);
    return part;
  });
  for (const [index, part] of parts.entries()) {
    const earlier = parts.findIndex((other) => other.equals(part));
    if (earlier < index) throw new KeyComponentError(`${where(index + 1)}: repeats component ${earlier + 1}`);
  }
  const key = xor(parts);
  for (const part of parts) part.fill(0);
  const actual = checkValue(key);
  if (actual !== expected) {
    key.fill(0);
    throw new KeyComponentError(`${where()}: components 1-${parts.length} give check value ${actual}; one of them is wrong or from another key`);
  }
  return key;
}

function ringOf(section: TComponentSection, file: TComponentsFile, base: string): TKeyring {
  const entries = Object.entries(file[section] ?? {});
  return { activeId: entries[0]![0], keys: new Map(entries.map(([id, entry]) => [id, rebuild(section, id, entry, base)])) };
}

/** The JSON file `path`, checked against its shape (each section optional); throws with the start's one line. */
function readComponentsFile(path: string): TComponentsFile {
  if (!existsSync(path)) throw new KeyComponentError(`file ${path} is missing`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new KeyComponentError(`${path} is not valid JSON`);
  }
  const parsed = ZComponentsFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new KeyComponentError(`${path}: ${issue.path.join('.') || 'the file'} ${issue.message}`);
  }
  return parsed.data;
}

/** The sections the set `path` has (its file checked, no component read): whose keys it holds. */
export function componentSections(path: string): TComponentSection[] {
  const file = readComponentsFile(path);
  return COMPONENT_SECTIONS.filter((section) => file[section]);
}

/**
 * The keys `path` describes, each checked: the four vault keys a worker needs, and the job
 * signing key when the set has it (`npm start`'s); throws KeyComponentError with the start's one line.
 */
export function readComponentKeys(path: string): TSoftwareKeys {
  const file = readComponentsFile(path);
  const missing = VAULT_SECTIONS.filter((section) => !file[section]);
  if (missing.length > 0) throw new KeyComponentError(`${path}: has no ${missing.join(', ')} section (a worker's set has ${VAULT_SECTIONS.join(', ')})`);
  const base = dirname(path);
  const [kekTest, kekLive, fingerprint, transit] = VAULT_SECTIONS.map((section) => ringOf(section, file, base)) as [TKeyring, TKeyring, TKeyring, TKeyring];
  for (const id of kekTest.keys.keys()) {
    if (kekLive.keys.has(id)) throw new KeyComponentError(`kekLive key "${id}" is also a kekTest key id; test and live keys must be apart`);
  }
  const jobSigning = file.jobSigning ? ringOf('jobSigning', file, base) : undefined;
  return {
    kek: { test: kekTest, live: kekLive },
    fingerprint: { id: fingerprint.activeId, key: fingerprint.keys.get(fingerprint.activeId)! },
    transit,
    ...(jobSigning ? { jobSigning: { id: jobSigning.activeId, seed: jobSigning.keys.get(jobSigning.activeId)! } } : {}),
  };
}

/**
 * The API's view of a set: the job signing key alone, rebuilt and checked, and the names of the
 * vault sections the set also has (their components are not read). Throws with the start's one line.
 */
export function readJobSigningComponents(path: string): { id: string; seed: Buffer; vaultSections: string[] } {
  const file = readComponentsFile(path);
  if (!file.jobSigning) throw new KeyComponentError(`${path}: has no jobSigning section (npm run keys:components -- --for api writes one)`);
  const ring = ringOf('jobSigning', file, dirname(path));
  return { id: ring.activeId, seed: ring.keys.get(ring.activeId)!, vaultSections: VAULT_SECTIONS.filter((section) => file[section]) };
}

/** A new key split into `parts` full-length components, for a key ceremony (`npm run keys:components`). */
export function splitNewKey(parts: number): { components: Buffer[]; checkValue: string; key: Buffer } {
  const key = randomBytes(KEY_BYTES);
  const components: Buffer[] = Array.from({ length: parts - 1 }, () => randomBytes(KEY_BYTES));
  components.push(xor([key, ...components]) as Buffer);
  return { components, checkValue: checkValue(key), key };
}

/** The key ids a new set gets, one key per section. */
export const NEW_SET_IDS: Record<TComponentSection, string> = {
  kekTest: 'folio-kek-test-1',
  kekLive: 'folio-kek-live-1',
  fingerprint: 'folio-fingerprint-1',
  transit: 'folio-transit-1',
  jobSigning: 'folio-job-signing-1',
};

const SECTIONS_FOR: Record<TKeysFor, readonly TComponentSection[]> = { worker: VAULT_SECTIONS, api: ['jobSigning'], all: COMPONENT_SECTIONS };

export interface TWrittenSet {
  /** The JSON file VAULT_KEY_COMPONENTS names. */
  file: string;
  /** Each section's key id and check value, for the ceremony's record. */
  keys: Array<{ section: TComponentSection; keyId: string; checkValue: string; files: string[] }>;
  /** VAULT_TRANSIT_PUBLIC_KEYS for the API, when the set has the transit key. */
  transitPublicKeys?: string;
  /** VAULT_JOB_VERIFY_KEYS for the workers, when the set has the job signing key. */
  jobVerifyKeys?: string;
}

/**
 * Writes a new set of keys into `dir`, each split into `parts` components: `<keyId>.<n>.b64`, one
 * file per custodian and component (0600), and `components.json`. The keys themselves are never
 * written; only the public halves of the transit and job signing keys leave this function.
 */
export function writeNewComponentSet(dir: string, parts: number, options: { for?: TKeysFor; ids?: Record<TComponentSection, string> } = {}): TWrittenSet {
  if (!Number.isInteger(parts) || parts < 2 || parts > 9) throw new Error('parts must be 2-9');
  const ids = options.ids ?? NEW_SET_IDS;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const json: Record<string, Record<string, { components: string[]; checkValue: string }>> = {};
  const keys: TWrittenSet['keys'] = [];
  const publicHalves: Pick<TWrittenSet, 'transitPublicKeys' | 'jobVerifyKeys'> = {};
  for (const section of SECTIONS_FOR[options.for ?? 'all']) {
    const keyId = ids[section];
    const split = splitNewKey(parts);
    const files = split.components.map((component, index) => {
      const name = `${keyId}.${index + 1}.b64`;
      writeFileSync(join(dir, name), `${component.toString('base64')}\n`, { mode: 0o600 });
      component.fill(0);
      return name;
    });
    if (section === 'transit') publicHalves.transitPublicKeys = publicKeysSetting({ activeId: keyId, keys: new Map([[keyId, split.key]]) });
    if (section === 'jobSigning') publicHalves.jobVerifyKeys = jobVerifyKeysSetting(softwareJobSigner(keyId, split.key));
    split.key.fill(0);
    json[section] = { [keyId]: { components: files, checkValue: split.checkValue } };
    keys.push({ section, keyId, checkValue: split.checkValue, files });
  }
  const file = join(dir, 'components.json');
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
  return { file, keys, ...publicHalves };
}
