// Split-knowledge keys for sites without an HSM (PCI DSS 3.6.1.2: "two or more full-length key
// components"). Each key is the XOR of two or more 32-byte components, each in a file of its own
// (one per custodian), checked against the key's check value before anything uses it. The file
// VAULT_KEY_COMPONENTS names describes them:
//   {"kekTest": {"<keyId>": {"components": ["<file>", …], "checkValue": "<6 hex>"}, …},
//    "kekLive": {…}, "fingerprint": {…}, "transit": {…}}
// the first key id of each section active; component paths relative to that file. A problem stops
// the start with one line naming the key, key id and component number — never a key byte.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { KEY_BYTES, type TKeyring } from '../crypto/keyring.js';
import { publicKeysSetting } from '../crypto/transit.js';
import { checkValue } from './check-value.js';
import { KeySetupError, type TSoftwareKeys } from './key-provider.js';

export const COMPONENT_SECTIONS = ['kekTest', 'kekLive', 'fingerprint', 'transit'] as const;
export type TComponentSection = (typeof COMPONENT_SECTIONS)[number];

const ZKeyEntry = z.object({ components: z.array(z.string().min(1)), checkValue: z.string().regex(/^[0-9a-fA-F]{6}$/) });
const ZSection = z.record(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/), ZKeyEntry).refine((keys) => Object.keys(keys).length > 0, 'needs at least one key');
const ZComponentsFile = z.object(Object.fromEntries(COMPONENT_SECTIONS.map((name) => [name, ZSection])) as Record<TComponentSection, typeof ZSection>);
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
  const entries = Object.entries(file[section]);
  return { activeId: entries[0]![0], keys: new Map(entries.map(([id, entry]) => [id, rebuild(section, id, entry, base)])) };
}

/** The keys `path` describes, each checked; throws KeyComponentError with the start's one line. */
export function readComponentKeys(path: string): TSoftwareKeys {
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
  const base = dirname(path);
  const [kekTest, kekLive, fingerprint, transit] = COMPONENT_SECTIONS.map((section) => ringOf(section, parsed.data, base)) as [TKeyring, TKeyring, TKeyring, TKeyring];
  for (const id of kekTest.keys.keys()) {
    if (kekLive.keys.has(id)) throw new KeyComponentError(`kekLive key "${id}" is also a kekTest key id; test and live keys must be apart`);
  }
  return {
    kek: { test: kekTest, live: kekLive },
    fingerprint: { id: fingerprint.activeId, key: fingerprint.keys.get(fingerprint.activeId)! },
    transit,
  };
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
};

export interface TWrittenSet {
  /** The JSON file VAULT_KEY_COMPONENTS names. */
  file: string;
  /** Each section's key id and check value, for the ceremony's record. */
  keys: Array<{ section: TComponentSection; keyId: string; checkValue: string; files: string[] }>;
  /** VAULT_TRANSIT_PUBLIC_KEYS for the API. */
  transitPublicKeys: string;
}

/**
 * Writes a new set of keys into `dir`, each split into `parts` components: `<keyId>.<n>.b64`, one
 * file per custodian and component (0600), and `components.json`. The keys themselves are never
 * written; only the transit key's public half leaves this function.
 */
export function writeNewComponentSet(dir: string, parts: number, ids: Record<TComponentSection, string> = NEW_SET_IDS): TWrittenSet {
  if (!Number.isInteger(parts) || parts < 2 || parts > 9) throw new Error('parts must be 2-9');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const json: Record<string, Record<string, { components: string[]; checkValue: string }>> = {};
  const keys: TWrittenSet['keys'] = [];
  let transitPublicKeys = '';
  for (const section of COMPONENT_SECTIONS) {
    const keyId = ids[section];
    const split = splitNewKey(parts);
    const files = split.components.map((component, index) => {
      const name = `${keyId}.${index + 1}.b64`;
      writeFileSync(join(dir, name), `${component.toString('base64')}\n`, { mode: 0o600 });
      component.fill(0);
      return name;
    });
    if (section === 'transit') transitPublicKeys = publicKeysSetting({ activeId: keyId, keys: new Map([[keyId, split.key]]) });
    split.key.fill(0);
    json[section] = { [keyId]: { components: files, checkValue: split.checkValue } };
    keys.push({ section, keyId, checkValue: split.checkValue, files });
  }
  const file = join(dir, 'components.json');
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
  return { file, keys, transitPublicKeys };
}
