import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import request from 'supertest';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiJobSigningKey, startApi } from '@folio-vault/api/server';
import { LOCAL_KEY_NAMES, loadConfig, loadKeyCustody } from '@folio-vault/shared/config';
import { createLogger } from '@folio-vault/shared/logger';
import { openSecret } from '@folio-vault/shared/webhooks/secrets';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import { SECRET_UNOPENABLE } from '@folio-vault/worker/webhooks/delivery-processor';
import { KeySetupError } from '@folio-vault/shared/vault/keys/key-provider';
import { newDataKey, sealField } from '@folio-vault/shared/vault/crypto/envelope';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { formatKeyring, openTransit, publicKeyring } from '@folio-vault/shared/vault/crypto/transit';
import { checkValue } from '@folio-vault/shared/vault/keys/check-value';
import { KeyComponentError, readComponentKeys, readJobSigningComponents, writeNewComponentSet } from '@folio-vault/shared/vault/keys/components';
import { openJobSigningKey, openKeyProvider } from '@folio-vault/shared/vault/keys/open-key-provider';
import { jobRefusal, jobVerifyKeys, jobVerifyKeysSetting, signJob, softwareJobSigner } from '@folio-vault/shared/vault/job-signature';
import { Pkcs11Token, readPinFile } from '@folio-vault/shared/vault/keys/pkcs11-provider';
import { cardBody, futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { v7 as uuidv7 } from 'uuid';
import { CardRepository, type TNewCardRow } from '@folio-vault/worker/vault/card-repository';
import { CardVault } from '@folio-vault/worker/vault/card-vault';
import { RECORD_BINDING, recordAad } from '@folio-vault/worker/vault/record-binding';
import { createTestPki, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { deleteToken, destinationsSetting, forward, getToken, tokenize } from './support/forward.js';
import { newSoftHsmToken, pkcs11Settings, SOFTHSM_MODULE, worldPkcs11Env } from './support/softhsm.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

/**
 * Key custody (docs/security.md#key-custody): the vault's keys in a real PKCS#11 token (SoftHSM2) or
 * as split components, through the real API, queue, worker and PostgreSQL; the key commands run as
 * an operator runs them.
 */

describe('VAULT_KEY_PROVIDER=pkcs11 (SoftHSM2)', () => {
  let world: TWorld;
  let gateway: TTestGateway;

  beforeAll(async () => {
    const pki = await createTestPki();
    gateway = await startGateway({ pki });
    // The API's job signing key is apart from the workers' token, as in production (a token or
    // component set of its own): with the workers' token gone, the API still signs its jobs.
    const apiKey = softwareJobSigner('api-job-signing-1', randomBytes(32));
    world = await createWorld({
      keys: 'pkcs11',
      env: { VAULT_FORWARD_DESTINATIONS: destinationsSetting([{ name: 'acme', url: gateway.origin, ca: pki.ca }]), VAULT_JOB_VERIFY_KEYS: jobVerifyKeysSetting(apiKey) },
      api: { jobSigner: apiKey },
    });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await gateway?.close();
  });

  const labels = () => JSON.parse(world.env.PKCS11_KEY_LABELS!) as { kekTest: string[]; fingerprint: string };

  it('tokenizes, reads, finds by fingerprint, forwards and deletes with every key inside the token', async () => {
    const body = cardBody({ card_number: '4111111111111111', cvv: '123' });
    const first = await tokenize(world, body);
    const second = await tokenize(world, body);
    const read = await getToken(world, first);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: first, last4: '1111', first6: '411111', test_mode: true });

    // The record's data key is wrapped by the token's KEK; its fingerprint came from the token's HMAC key.
    const row = (await world.pool.query('SELECT kek_id, fingerprint, fingerprint_key FROM vault_test.cards WHERE id = $1', [first])).rows[0];
    expect(row.kek_id).toBe(labels().kekTest[0]);
    expect(row.fingerprint_key).toBe(labels().fingerprint);
    const keys = await openKeyProvider(loadConfig(world.env, 'worker'));
    try {
      expect(row.fingerprint).toBe((await keys.hmac('pan:v2:1:4111111111111111')).toString('base64url'));
    } finally {
      await keys.close();
    }
    const found = await request(world.url)
      .get(`/vault/v1/tokens?fingerprint=${encodeURIComponent(row.fingerprint)}`)
      .set('Authorization', `Bearer ${world.token({ properties: [1], scope: 'read:payment' })}`)
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test');
    expect(found.status).toBe(200);
    expect(found.body.tokens.map((token: { id: string }) => token.id).sort()).toEqual([first, second].sort());

    const before = gateway.calls();
    const res = await forward(world, first, { destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: '{"number":"{{card.number}}","cvc":"{{card.cvv}}"}' });
    expect(res.status, res.text).toBe(200);
    expect(gateway.calls()).toBe(before + 1);
    expect(gateway.requests.at(-1)!.body).toBe('{"number":"4111111111111111","cvc":"123"}');

    expect((await deleteToken(world, first)).status).toBe(204);
    expect((await getToken(world, first)).status).toBe(404);
  });

  it("a tokenize job in Redis cannot be opened with anything the API process has", async () => {
    const id = await tokenize(world, cardBody({ card_number: '4242424242424242' }));
    const job = await new Queue(QUEUE_NAMES.vault, { connection: world.redis, prefix: world.config.QUEUE_PREFIX }).getJob(id);
    const sealedCard = (job!.data as { sealedCard: string }).sealedCard;
    expect(sealedCard).toMatch(/^v2\.w[0-9a-f]{8}-transit-1\./);
    // What the API's settings hold: the JWT secret, the link key, the public transit keys and the
    // custody of its job signing key (here the world's token; in production one of its own).
    const api = loadConfig(world.env, 'api');
    const candidates = [api.VAULT_TRANSIT_PUBLIC_KEYS!, parseKeyring(`${api.VAULT_TRANSIT_PUBLIC_KEYS!.activeId}:${api.EXPORT_LINK_KEY.toString('base64')}`)];
    for (const keys of candidates) await expect(openTransit(keys, sealedCard, `${id}:1:test`)).rejects.toThrow();
    expect(Object.keys(api).filter((name) => /KEK|FINGERPRINT|TRANSIT_KEY$/.test(name))).toEqual([]);
  });

  it('no key can be read out of the token (the job signing key\'s private half included): CKA_VALUE answers CKR_ATTRIBUTE_SENSITIVE, and each key is non-extractable', () => {
    const all = JSON.parse(world.env.PKCS11_KEY_LABELS!) as { kekTest: string[]; kekLive: string[]; fingerprint: string; transit: string[]; jobSigning: string };
    const token = Pkcs11Token.open({ module: SOFTHSM_MODULE, tokenLabel: world.env.PKCS11_TOKEN_LABEL!, pinFile: world.env.PKCS11_PIN_FILE!, labels: all });
    try {
      const { binding } = token;
      for (const label of [...all.kekTest, ...all.kekLive, all.fingerprint, ...all.transit, all.jobSigning]) {
        const handle = label === all.jobSigning ? token.findKeyPair(label)!.privateKey : token.findKey(label)!;
        expect(handle, label).toBeDefined();
        expect(() => token.attributes(handle, [binding.CKA_VALUE]), label).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
        const [sensitive, extractable] = token.attributes(handle, [binding.CKA_SENSITIVE, binding.CKA_EXTRACTABLE]);
        expect([sensitive!.value, extractable!.value], label).toEqual([Buffer.from([1]), Buffer.from([0])]);
      }
    } finally {
      token.close();
    }
  });

  it('an HSM gone mid-run: tokenize and forward answer 503 naming the keys, jobs are retried, /readyz names them; all recovers when it is back', async () => {
    const id = await tokenize(world, cardBody());
    const tokenDir = /directories\.tokendir = (.*)/.exec(readFileSync(world.env.SOFTHSM2_CONF!, 'utf8'))![1]!;
    const ready = () => request(world.url).get('/readyz');
    renameSync(tokenDir, `${tokenDir}-away`);
    try {
      const res = await request(world.url).post('/vault/v1/tokens/card').set('Authorization', `Bearer ${world.token({ properties: [1] })}`)
        .set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test').send(cardBody());
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.errorDetails).toBe('The vault keys cannot be used right now; retry shortly.');
      const before = gateway.calls();
      const forwarded = await forward(world, id, { destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: '{"number":"{{card.number}}"}' });
      expect(forwarded.status).toBe(503);
      expect(gateway.calls()).toBe(before);
      // Retried, then answered as a typed outcome on its last attempt (the API's 503 above).
      const vaultQueue = new Queue(QUEUE_NAMES.vault, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
      const unavailable = (await vaultQueue.getCompleted()).filter((job) => job.name === 'tokenize-card' && job.returnvalue?.outcome === 'keys_unavailable');
      expect(unavailable.map((job) => [job.returnvalue, job.attemptsMade])).toEqual([[{ outcome: 'keys_unavailable' }, 3]]);
      await vaultQueue.close();
      let readiness = await ready();
      for (let i = 0; i < 100 && readiness.status === 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        readiness = await ready();
      }
      expect(readiness.status).toBe(503);
      expect(readiness.body.checks).toEqual({ redis: 'ok', postgres: 'ok', storage: 'ok', keys: 'unavailable' });
    } finally {
      renameSync(`${tokenDir}-away`, tokenDir);
    }
    // Back: the worker's next key check opens the token afresh and finds its keys by label.
    let readiness = await ready();
    for (let i = 0; i < 100 && readiness.status !== 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      readiness = await ready();
    }
    expect(readiness.body.checks.keys).toBe('ok');
    expect((await getToken(world, await tokenize(world, cardBody()))).status).toBe(200);
    const again = await forward(world, id, { destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: '{"number":"{{card.number}}"}' });
    expect(again.status, again.text).toBe(200);
    expect(world.logs.some((line) => line.includes('"msg":"vault keys unavailable"'))).toBe(true);
    expect(world.logs.some((line) => line.includes('"msg":"vault keys available again"'))).toBe(true);
  }, 60_000);

  it('a worker whose PKCS11_PIN_FILE is a folder stops at start with that one line', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fvt-pin-folder-'));
    const run = spawnTs('apps/worker/src/main.ts', [], { ...world.env, PKCS11_PIN_FILE: folder, LOG_LEVEL: 'info' });
    expect(await run.exited).toBe(2);
    expect(run.output().split('\n').filter((line) => line.includes('PKCS11_PIN_FILE'))).toEqual([`folio-vault worker: PKCS11_PIN_FILE: ${folder} is not a regular file`]);
    expect(run.output()).not.toMatch(/\n\s+at /);
  });

  it('the worker says which keys it opened, by label, and its readiness checks the token', async () => {
    const line = world.logs.find((entry) => entry.includes('"msg":"vault keys opened"'))!;
    expect(JSON.parse(line)).toMatchObject({ provider: 'pkcs11', kek: { test: labels().kekTest[0] } });
    expect(world.logs.join('')).not.toContain(readFileSync(world.env.PKCS11_PIN_FILE!, 'utf8').trim());
  });
});

describe('npm run keys:hsm-init and keys:public', () => {
  it('creates the default keys in a new token once, prints their check values and the API line; a second run creates nothing', async () => {
    const token = newSoftHsmToken();
    const env = { ...process.env, ...pkcs11Settings(token), DATABASE_URL: 'postgres://unused@127.0.0.1:1/x' } as Record<string, string>;
    delete env.PKCS11_KEY_LABELS;
    const first = spawnTs('scripts/keys-hsm-init.ts', [], env);
    expect(await first.exited, first.output()).toBe(0);
    const lines = first.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^folio-kek-test-1: AES-256 key-encryption key, created; check value [0-9a-f]{6}$/),
      expect.stringMatching(/^folio-kek-live-1: AES-256 key-encryption key, created; check value [0-9a-f]{6}$/),
      expect.stringMatching(/^folio-fingerprint-1: HMAC-SHA256 secret, created; check value [0-9a-f]{6}$/),
      expect.stringMatching(/^folio-transit-1: HMAC-SHA256 secret, created; check value [0-9a-f]{6}$/),
      expect.stringMatching(/^folio-job-signing-1: Ed25519 job signing key, created; public key [A-Za-z0-9+/]{43}=$/),
      expect.stringMatching(/^VAULT_JOB_VERIFY_KEYS=folio-job-signing-1:[A-Za-z0-9+/]{43}=$/),
      expect.stringMatching(/^VAULT_TRANSIT_PUBLIC_KEYS=folio-transit-1:[A-Za-z0-9+/]{43}=$/),
    ]);

    const second = spawnTs('scripts/keys-hsm-init.ts', [], env);
    expect(await second.exited, second.output()).toBe(0);
    const again = second.output().trim().split('\n');
    expect(again.slice(0, 5).every((line) => line.includes('already in the token'))).toBe(true);
    // Same keys: same check values, same public keys.
    expect(again.map((line) => line.replace('already in the token', 'created'))).toEqual(lines);

    const printed = spawnTs('scripts/keys-public.ts', [], env);
    expect(await printed.exited, printed.output()).toBe(0);
    expect(printed.output().trim().split('\n')).toEqual(lines.slice(-2));

    // The signing key made in the token signs inside it (CKM_EDDSA), and what a worker holds (the
    // printed VAULT_JOB_VERIFY_KEYS) verifies it, for that job and no other.
    const signing = await openJobSigningKey(loadKeyCustody(env));
    try {
      const workerKeys = jobVerifyKeys(parseKeyring(lines.at(-2)!.slice('VAULT_JOB_VERIFY_KEYS='.length)));
      const job = await signJob(signing.signer, 'read-card-token', { version: 2, tokenId: uuidv7(), propertyId: '1', mode: 'test', requestId: 'r-1' }, 60_000);
      expect(jobRefusal(workerKeys, 'read-card-token', job)).toBeUndefined();
      expect(jobRefusal(workerKeys, 'delete-card-token', job)).toBe('bad_signature');
      expect(jobRefusal(workerKeys, 'read-card-token', { ...job, propertyId: '2' })).toBe('bad_signature');
      // This token holds the vault keys too: a production API refuses it (below, with components).
      expect(signing.vaultKeys.sort()).toEqual(['folio-fingerprint-1', 'folio-kek-live-1', 'folio-kek-test-1', 'folio-transit-1']);
    } finally {
      await signing.close();
    }
  });

  it('--for api makes the job signing key alone, in a token of its own: what a production API opens', async () => {
    const token = newSoftHsmToken();
    const env = { ...process.env, ...pkcs11Settings(token), DATABASE_URL: 'postgres://unused@127.0.0.1:1/x' } as Record<string, string>;
    delete env.PKCS11_KEY_LABELS;
    const run = spawnTs('scripts/keys-hsm-init.ts', ['--for', 'api'], env);
    expect(await run.exited, run.output()).toBe(0);
    const lines = run.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^folio-job-signing-1: Ed25519 job signing key, created; public key [A-Za-z0-9+/]{43}=$/),
      expect.stringMatching(/^VAULT_JOB_VERIFY_KEYS=folio-job-signing-1:[A-Za-z0-9+/]{43}=$/),
    ]);
    const signing = await openJobSigningKey(loadKeyCustody(env));
    expect(signing.vaultKeys).toEqual([]);
    expect(jobVerifyKeysSetting(signing.signer)).toBe(lines[1]!.slice('VAULT_JOB_VERIFY_KEYS='.length));
    await signing.close();
  });

  it('refuses a wrong PIN, an unknown token and a missing key label with one line each, exit code 2', async () => {
    const token = newSoftHsmToken();
    const wrongPin = join(mkdtempSync(join(tmpdir(), 'fvt-pin-')), 'pin');
    writeFileSync(wrongPin, '000000\n');
    const base = { ...process.env, ...pkcs11Settings(token) } as Record<string, string>;
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PKCS11_PIN_FILE: wrongPin }, /^keys:public: PKCS11_PIN_FILE: token "fvt-[0-9a-f]+" refused the PIN \(.*CKR_PIN_INCORRECT.*\)$/],
      [{ PKCS11_TOKEN_LABEL: 'no-such-token' }, /^keys:public: PKCS11_TOKEN_LABEL: no token "no-such-token" in \/usr\/lib\/softhsm\/libsofthsm2\.so \(tokens: .*fvt-/],
      [{ PKCS11_KEY_LABELS: '{}' }, /^keys:public: PKCS11_KEY_LABELS: no key "folio-kek-test-1" in token "fvt-[0-9a-f]+"; create the keys with npm run keys:hsm-init$/],
      [{ PKCS11_MODULE: '/nowhere/libpkcs11.so' }, /^keys:public: PKCS11_MODULE: \/nowhere\/libpkcs11\.so does not exist/],
      [{ PKCS11_PIN_FILE: tmpdir() }, new RegExp(`^keys:public: PKCS11_PIN_FILE: ${tmpdir()} is not a regular file$`)],
    ];
    for (const [change, line] of cases) {
      const run = spawnTs('scripts/keys-public.ts', [], { ...base, ...change });
      expect(await run.exited, run.output()).toBe(2);
      const output = run.output().trim().split('\n');
      expect(output, run.output()).toHaveLength(1);
      expect(output[0]).toMatch(line);
      expect(run.output()).not.toContain(readFileSync(token.pinFile, 'utf8').trim());
    }
  });
});

describe('PKCS11_PIN_FILE', () => {
  it('is read when it is a readable regular file, and refused with one line naming it otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fvt-pin-'));
    const pin = join(dir, 'pin');
    writeFileSync(pin, '123456\n');
    expect(readPinFile(pin)).toBe('123456');
    const refusal = (path: string) => {
      try {
        readPinFile(path);
      } catch (error) {
        expect(error).toBeInstanceOf(KeySetupError);
        return (error as Error).message;
      }
      throw new Error(`${path} was read`);
    };
    expect(refusal(dir)).toBe(`PKCS11_PIN_FILE: ${dir} is not a regular file`);
    expect(refusal(join(dir, 'gone'))).toBe(`PKCS11_PIN_FILE: ${join(dir, 'gone')} does not exist`);
    expect(refusal(join(pin, 'below'))).toBe(`PKCS11_PIN_FILE: ${join(pin, 'below')} does not exist`);
    expect(refusal('/dev/null')).toBe('PKCS11_PIN_FILE: /dev/null is not a regular file');
  });
});

describe('npm start with VAULT_KEY_PROVIDER=pkcs11 and no token configured', () => {
  it('creates a development SoftHSM2 token with the default keys under the data directory once, and reuses it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fvt-data-'));
    const run = async () => {
      const probe = spawnTs('test/support/dev-softhsm-probe.ts', [dataDir], { PATH: process.env.PATH! });
      expect(await probe.exited, probe.output()).toBe(0);
      return probe.output().trim().split('\n');
    };
    const first = await run();
    expect(first[0]).toBe(
      `development PKCS#11 token folio-vault-dev (SoftHSM2) created in ${join(dataDir, 'softhsm')}; keys created: folio-kek-test-1, folio-kek-live-1, folio-fingerprint-1, folio-transit-1, folio-job-signing-1`,
    );
    const second = await run();
    expect(second[0]).toBe(`development PKCS#11 token folio-vault-dev (SoftHSM2) reused from ${join(dataDir, 'softhsm')}`);
    // The same token: the same worker key.
    expect(second.at(-1)).toMatch(/^VAULT_TRANSIT_PUBLIC_KEYS=folio-transit-1:/);
    expect(second.at(-1)).toBe(first.at(-1));
  });
});

describe('VAULT_KEY_PROVIDER=components', () => {
  let world: TWorld;
  let dir: string;
  let set: ReturnType<typeof writeNewComponentSet>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fvt-components-'));
    set = writeNewComponentSet(dir, 3);
    world = await createWorld({
      env: { VAULT_KEY_PROVIDER: 'components', VAULT_KEY_COMPONENTS: set.file, VAULT_TRANSIT_PUBLIC_KEYS: set.transitPublicKeys!, VAULT_JOB_VERIFY_KEYS: set.jobVerifyKeys! },
    });
  }, 60_000);
  afterAll(async () => world?.close());

  it('tokenizes, reads and deletes under keys rebuilt from three custodians\' components', async () => {
    const id = await tokenize(world, cardBody());
    expect((await getToken(world, id)).body).toMatchObject({ id, last4: '1111' });
    expect((await world.pool.query('SELECT kek_id, fingerprint_key FROM vault_test.cards WHERE id = $1', [id])).rows[0]).toEqual({
      kek_id: 'folio-kek-test-1', fingerprint_key: 'folio-fingerprint-1',
    });
    expect((await deleteToken(world, id)).status).toBe(204);
  });

  it('writes a set whose every key matches its check value, and whose transit and job signing public keys are the printed lines', () => {
    const keys = readComponentKeys(set.file);
    const json = JSON.parse(readFileSync(set.file, 'utf8'));
    expect(checkValue(keys.kek.test.keys.get('folio-kek-test-1')!)).toBe(json.kekTest['folio-kek-test-1'].checkValue);
    expect(json.kekTest['folio-kek-test-1'].components).toEqual(['folio-kek-test-1.1.b64', 'folio-kek-test-1.2.b64', 'folio-kek-test-1.3.b64']);
    expect(formatKeyring(publicKeyring(keys.transit))).toBe(set.transitPublicKeys);
    // The job signing key: the XOR of its components is the Ed25519 seed, checked like the others.
    expect(keys.jobSigning!.id).toBe('folio-job-signing-1');
    expect(checkValue(keys.jobSigning!.seed)).toBe(json.jobSigning['folio-job-signing-1'].checkValue);
    expect(jobVerifyKeysSetting(softwareJobSigner(keys.jobSigning!.id, keys.jobSigning!.seed))).toBe(set.jobVerifyKeys);
    // An API's set has that key alone; a worker's set has none, and an API cannot start from it.
    const apiSet = writeNewComponentSet(join(dir, 'api'), 2, { for: 'api' });
    expect(Object.keys(JSON.parse(readFileSync(apiSet.file, 'utf8')))).toEqual(['jobSigning']);
    expect(readJobSigningComponents(apiSet.file)).toMatchObject({ id: 'folio-job-signing-1', vaultSections: [] });
    expect([apiSet.jobVerifyKeys, apiSet.transitPublicKeys]).toEqual([expect.stringMatching(/^folio-job-signing-1:/), undefined]);
    const workerSet = writeNewComponentSet(join(dir, 'worker'), 2, { for: 'worker' });
    expect(() => readJobSigningComponents(workerSet.file)).toThrow(`VAULT_KEY_COMPONENTS: ${workerSet.file}: has no jobSigning section (npm run keys:components -- --for api writes one)`);
    expect(readComponentKeys(workerSet.file).jobSigning).toBeUndefined();
  });

  it('an API start under NODE_ENV=production refuses a set that also holds vault keys, with one line (its own set it accepts)', async () => {
    // As production gives it: no cleartext key beside the components, its own role's database URL.
    const cleartext = new Set<string>(LOCAL_KEY_NAMES);
    const env = { ...Object.fromEntries(Object.entries(world.env).filter(([name]) => !cleartext.has(name))), NODE_ENV: 'production', API_DATABASE_URL: world.config.API_DATABASE_URL };
    const refused = startApi(loadConfig(env, 'api'), world.logger, { port: 0 });
    await expect(refused).rejects.toThrow(KeySetupError);
    await expect(refused).rejects.toMatchObject({
      message:
        "VAULT_KEY_COMPONENTS: the API's key provider also holds vault keys (kekTest, kekLive, fingerprint, transit); " +
        'under NODE_ENV=production give the API a component set or token of its own that holds the job signing key only',
    });
    // Role all (npm start, one process) may hold both; an API with a set of its own starts.
    const apiSet = writeNewComponentSet(join(dir, 'api-own'), 2, { for: 'api' });
    const key = await openApiJobSigningKey(loadConfig({ ...env, VAULT_KEY_COMPONENTS: apiSet.file }, 'api'));
    expect(jobVerifyKeysSetting(key.signer)).toBe(apiSet.jobVerifyKeys);
    await key.close();
  });

  /** A copy of the set with `change` applied to the kekLive entry's components. */
  function brokenSet(change: (components: string[], checkValue: string) => { components: string[]; checkValue?: string }): string {
    const json = JSON.parse(readFileSync(set.file, 'utf8'));
    const entry = json.kekLive['folio-kek-live-1'];
    Object.assign(entry, change(entry.components.map((file: string) => join(dir, file)), entry.checkValue));
    const file = join(dir, `broken-${randomBytes(3).toString('hex')}.json`);
    writeFileSync(file, JSON.stringify(json));
    return file;
  }
  const refusal = (file: string) => {
    try {
      readComponentKeys(file);
    } catch (error) {
      expect(error).toBeInstanceOf(KeyComponentError);
      return (error as Error).message;
    }
    throw new Error('the set was accepted');
  };

  it('refuses a missing, repeated, all-zero, short or wrong component with one line naming it and the check value, never a key byte', () => {
    const expected = JSON.parse(readFileSync(set.file, 'utf8')).kekLive['folio-kek-live-1'].checkValue as string;
    const where = `VAULT_KEY_COMPONENTS: kekLive key "folio-kek-live-1"`;
    const zeros = join(dir, 'zeros.b64');
    writeFileSync(zeros, Buffer.alloc(32).toString('base64'));
    const short = join(dir, 'short.b64');
    writeFileSync(short, randomBytes(16).toString('base64'));
    const other = join(dir, 'other.b64');
    writeFileSync(other, randomBytes(32).toString('base64'));
    const cases: Array<[string, string]> = [
      [brokenSet((c) => ({ components: [c[0]!, join(dir, 'gone.b64'), c[2]!] })), `${where}, component 2 (check value ${expected}): file ${join(dir, 'gone.b64')} is missing`],
      [brokenSet((c) => ({ components: [c[0]!, c[1]!, c[1]!] })), `${where}, component 3 (check value ${expected}): repeats component 2`],
      [brokenSet((c) => ({ components: [zeros, c[1]!, c[2]!] })), `${where}, component 1 (check value ${expected}): is all zeros`],
      [brokenSet((c) => ({ components: [c[0]!, c[1]!, short] })), `${where}, component 3 (check value ${expected}): is not 32 bytes of base64`],
      [brokenSet((c) => ({ components: [c[0]!] })), `${where} (check value ${expected}): needs at least 2 components, has 1`],
    ];
    for (const [file, line] of cases) expect(refusal(file)).toBe(line);
    const wrong = refusal(brokenSet((c) => ({ components: [c[0]!, other, c[2]!] })));
    expect(wrong).toMatch(new RegExp(`^${where} \\(check value ${expected}\\): components 1-3 give check value [0-9a-f]{6}; one of them is wrong or from another key$`));
    // The right components under another check value: refused the same way.
    expect(refusal(brokenSet((c) => ({ components: c, checkValue: expected === 'abcdef' ? '123456' : 'abcdef' })))).toMatch(/components 1-3 give check value/);
    const material = readFileSync(join(dir, 'folio-kek-live-1.1.b64'), 'utf8').trim();
    for (const [file] of cases) expect(refusal(file)).not.toContain(material);
  });

  it('a worker with a bad component stops at start with that one line', async () => {
    const file = brokenSet((c) => ({ components: [c[0]!, c[1]!, c[1]!] }));
    const env = { ...world.env, VAULT_KEY_COMPONENTS: file, LOG_LEVEL: 'info' };
    const run = spawnTs('apps/worker/src/main.ts', [], env);
    expect(await run.exited).toBe(2);
    const lines = run.output().split('\n').filter((line) => line.includes('VAULT_KEY_COMPONENTS'));
    expect(lines).toEqual([expect.stringMatching(/^folio-vault worker: VAULT_KEY_COMPONENTS: kekLive key "folio-kek-live-1", component 3 \(check value [0-9a-f]{6}\): repeats component 2$/)]);
  });
});

describe('npm run keys:rotate from local keys into a PKCS#11 token', () => {
  const TOKENS = 10_000;
  let world: TWorld;

  beforeAll(async () => {
    world = await createWorld();
  }, 60_000);
  afterAll(async () => world?.close());

  /** Records sealed by the world's `local` keys as the worker seals them, inserted in batches. */
  async function sealedRecords(count: number): Promise<Map<string, string>> {
    const local = await openKeyProvider(loadConfig(world.env, 'worker'));
    const repository = new CardRepository(world.pool);
    const vault = new CardVault(repository, local, 0);
    const pans = new Map<string, string>();
    try {
      for (let start = 0; start < count; start += 500) {
        const rows: TNewCardRow[] = [];
        for (let i = start; i < Math.min(count, start + 500); i += 1) {
          const id = uuidv7();
          const pan = generatedPan('4', 16);
          const aad = recordAad('test', { id, property_id: '1', record_binding: RECORD_BINDING });
          const dataKey = newDataKey();
          const wrapped = await local.wrapDataKey('test', dataKey, aad);
          const fingerprint = await vault.fingerprint('1', pan);
          rows.push({
            id, propertyId: '1', cardBrand: 'VISA', first6: pan.slice(0, 6), last4: pan.slice(-4), expMonth: '08', expYear: futureYear(),
            cardholderNameMasked: 'S*** R****', fingerprint: fingerprint.value, fingerprintKey: fingerprint.keyId, kekId: wrapped.kekId, wrappedDek: wrapped.wrapped,
            panCt: sealField(dataKey, pan, `${aad}:pan`), cardholderNameCt: sealField(dataKey, 'Sara Ryder', `${aad}:cardholder_name`), billingDetailsCt: null,
            expiresAt: new Date(Date.now() + 86_400_000).toISOString(), cvvCt: null, cvvHoldSeconds: 0,
          });
          pans.set(id, pan);
        }
        await repository.insertCards('test', rows);
      }
    } finally {
      await local.close();
    }
    return pans;
  }

  it(`re-seals ${TOKENS} records, killed half-way and resumed; each then opens, reads and forwards, fingerprinted by the token`, async () => {
    const pans = await sealedRecords(TOKENS);
    // Keys of its own in this process's token (support/softhsm.ts), as keys:hsm-init makes them.
    const env = { ...world.env, ...worldPkcs11Env() };
    const labels = JSON.parse(env.PKCS11_KEY_LABELS!) as { kekTest: string[]; fingerprint: string };
    const [kek, fingerprintKey] = [labels.kekTest[0]!, labels.fingerprint];
    // The running worker (local keys) stops; after the rotation one with the token's keys starts.
    await world.worker!.close();

    const underToken = async () => Number((await world.pool.query('SELECT count(*) AS n FROM vault_test.cards WHERE kek_id = $1', [kek])).rows[0].n);
    // Its own process group: the kill reaches the script behind tsx, as a machine's power-off would.
    const first = spawnTs('scripts/keys-rotate.ts', ['--mode', 'test', '--from', 'local', '--batch-size', '100'], env, { group: true });
    for (let i = 0; i < 2_000 && (await underToken()) < TOKENS / 2 && first.child.exitCode === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    first.kill('SIGKILL');
    await first.exited;
    const killedAt = await underToken();
    expect(killedAt).toBeGreaterThan(0);
    expect(killedAt).toBeLessThan(TOKENS);

    const second = spawnTs('scripts/keys-rotate.ts', ['--mode', 'test', '--from', 'local', '--batch-size', '500'], env);
    expect(await second.exited, second.output()).toBe(0);
    expect(second.output()).toContain(`keys:rotate test: ${TOKENS - killedAt} data keys re-wrapped under ${kek} (pkcs11); 0 under a key id not configured, 0 unreadable`);
    // The first run was killed before its re-fingerprinting ended (it starts after the re-wrap): the second does the rest.
    expect(second.output()).toMatch(new RegExp(`keys:rotate test: [1-9]\\d* records re-fingerprinted with ${fingerprintKey}; 0 with an old fingerprint do not open with these keys`));

    // Opened with the token's keys alone (no --from): every record.
    const verify = spawnTs('scripts/keys-rotate.ts', ['--mode', 'test', '--verify'], env);
    expect(await verify.exited, verify.output()).toBe(0);
    expect(verify.output()).toContain(`keys:rotate test: ${TOKENS} records checked, 0 do not open with the configured keys`);

    const hsm = await openKeyProvider(loadConfig(env, 'worker'));
    const fingerprints = (await world.pool.query<{ id: string; fingerprint: string; fingerprint_key: string }>('SELECT id, fingerprint, fingerprint_key FROM vault_test.cards')).rows;
    for (const row of fingerprints.slice(0, 50)) {
      expect(row).toEqual({ id: row.id, fingerprint: (await hsm.hmac(`pan:v2:1:${pans.get(row.id)}`)).toString('base64url'), fingerprint_key: fingerprintKey });
    }
    await hsm.close();
    expect(new Set(fingerprints.map((row) => row.fingerprint_key))).toEqual(new Set([fingerprintKey]));

    // A worker on the token's keys reads and forwards migrated records.
    const pki = await createTestPki();
    const gateway = await startGateway({ pki });
    const migrated = await createWorld({ env: { ...env, DATABASE_URL: world.env.DATABASE_URL!, VAULT_FORWARD_DESTINATIONS: destinationsSetting([{ name: 'acme', url: gateway.origin, ca: pki.ca }]), VAULT_TRANSIT_PUBLIC_KEYS: '', VAULT_JOB_VERIFY_KEYS: '' } });
    try {
      for (const id of [...pans.keys()].slice(0, 5)) {
        expect((await getToken(migrated, id)).body).toMatchObject({ id, last4: pans.get(id)!.slice(-4) });
        const res = await forward(migrated, id, { destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: '{"number":"{{card.number}}"}' });
        expect(res.status, res.text).toBe(200);
        expect(gateway.requests.at(-1)!.body).toBe(`{"number":"${pans.get(id)}"}`);
      }
    } finally {
      await migrated.close();
      await gateway.close();
    }
  }, 180_000);
});

/**
 * A change of key provider over existing data (`VAULT_KEY_PROVIDER=pkcs11 npm start` after a start
 * with the local keys): the worker says, in one line and before any job, which card records and
 * webhook secrets its keys cannot open and the command that moves them; a delivery it cannot sign
 * fails without an error line of its own. After `keys:rotate --from local` everything opens and a
 * worker says nothing.
 */
describe('a worker on other keys than the data was made with', () => {
  let world: TWorld;

  beforeAll(async () => {
    // Its endpoint is on this machine (never reached: the secret does not open first).
    world = await createWorld({ env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  }, 60_000);
  afterAll(async () => world?.close());

  /** A worker on `env`'s keys whose log lines are kept. */
  async function workerOn(env: Record<string, string>) {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    const worker = await startTestWorker(loadConfig(env, 'worker'), createLogger({ level: 'debug', destination }));
    return { worker, logged: () => lines.map((line) => JSON.parse(line) as { level: number; msg: string }) };
  }

  it('says in one line what its keys cannot open and how to move it; after keys:rotate --from local, all opens', { timeout: 90_000 }, async () => {
    for (const test of [true, true, false]) await tokenize(world, cardBody({ card_number: generatedPan(test ? '4' : '51', 16) }), { test });
    const created = await request(world.url)
      .post('/webhooks/v1/endpoints')
      .set('Authorization', `Bearer ${world.token({ properties: [1] })}`)
      .set('X-Property-Id', '1')
      .send({ url: 'http://127.0.0.1:9/folio', events: ['export.completed'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await world.worker!.close();
    // A delivery of that endpoint waiting in its queue, as the outbox leaves one: the next worker takes it.
    const deliveryId = uuidv7();
    await world.pool.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, property_id, event_id, type, payload, status, next_attempt_at)
       VALUES ($1, $2, 1, $3, 'export.completed', '{}', 'pending', now())`,
      [deliveryId, created.body.id, `evt_${deliveryId}`],
    );
    const queue = new Queue(QUEUE_NAMES.webhooks, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    await queue.add(webhookDeliveryJob.name, { deliveryId }, deliveryJobOptions(deliveryId, world.config.WEBHOOK_RETRY_SCHEDULE));
    await queue.close();

    const env = { ...world.env, ...worldPkcs11Env() };
    const transit = (JSON.parse(env.PKCS11_KEY_LABELS!) as { transit: string[] }).transit[0]!;
    const first = await workerOn(env);
    const delivery = async () => (await world.pool.query('SELECT status, last_error FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows[0];
    for (let i = 0; i < 300 && (await delivery()).status === 'pending'; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    await first.worker.close();
    expect(await delivery()).toEqual({ status: 'failed', last_error: SECRET_UNOPENABLE });
    expect(first.logged().filter((line) => line.level >= 40).map((line) => line.msg)).toEqual([
      'vault keys (pkcs11) cannot open 3 card records (test: 2 under test-kek-1; live: 1 under live-kek-1) and 1 webhook secret (sealed to transit-1), ' +
        'made with other keys: move them under these with VAULT_KEY_PROVIDER=pkcs11 npm run keys:rotate -- --from local ' +
        "(until then those cards cannot be read or forwarded, and those endpoints' deliveries fail)",
    ]);

    const rotate = spawnTs('scripts/keys-rotate.ts', ['--from', 'local'], env);
    expect(await rotate.exited, rotate.output()).toBe(0);
    expect(rotate.output()).toContain(`keys:rotate webhook secrets: 1 sealed again to ${transit} (pkcs11); 0 sealed to a key not configured, 0 unreadable`);
    const verify = spawnTs('scripts/keys-rotate.ts', ['--verify'], env);
    expect(await verify.exited, verify.output()).toBe(0);
    expect(verify.output()).toContain('keys:rotate webhook secrets: 1 checked, 0 do not open with the configured keys');

    const second = await workerOn(env);
    await second.worker.close();
    expect(second.logged().filter((line) => line.level >= 40)).toEqual([]);
    // The secret the endpoint's creation showed opens with the token's transit key alone.
    const hsm = await openKeyProvider(loadConfig(env, 'worker'));
    try {
      const { rows } = await world.pool.query<{ secret_ct: Buffer }>('SELECT secret_ct FROM webhook_endpoints WHERE id = $1', [created.body.id]);
      expect(await openSecret(hsm.transitKeys, created.body.id, rows[0]!.secret_ct)).toBe(created.body.secret);
    } finally {
      await hsm.close();
    }
  });
});
