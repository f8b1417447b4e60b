import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppError, connectionFailureOf, describeFieldErrors, toAppError, toErrorBody } from '@folio-vault/shared/errors';
import { z } from '@folio-vault/shared/schemas/zod';
import { generatedPan } from '@folio-vault/test-kit/cards';
import { FsStorage } from '@folio-vault/shared/storage/fs-storage';
import { MinioStorage } from '@folio-vault/shared/storage/minio-storage';

/**
 * toAppError against errors the drivers really raise: a PostgreSQL server that is not there, that
 * drops the connection, that accepts and never answers; Redis clients with nothing to talk to; a
 * store that cannot take a file. Each is a 503 naming no internals; anything else is a 500.
 */
async function rejectionOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const UNAVAILABLE = { code: 'SERVICE_UNAVAILABLE', status: 503, retryAfterSeconds: 2 };

let closedPort: number;
/** Accepts connections and never answers: a server that hangs. */
let silent: Server;
let silentPort: number;
const sockets: Socket[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'fv-errors-'));

/** A port nothing listens on: one the system handed out and took back. */
async function closedPortNumber(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  closedPort = await closedPortNumber();
  silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

describe('toAppError — PostgreSQL', () => {
  it('a server that is not listening (ECONNREFUSED) is a 503', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${closedPort}/x` });
    const error = await rejectionOf(() => client.connect());
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(connectionFailureOf(error)).toBe('network');
    expect(toAppError(error)).toMatchObject({ ...UNAVAILABLE, message: 'A store this request needs cannot be reached right now; retry shortly.' });
    expect(toAppError(error).cause).toBe(error);
  });

  it('a server that ends the session (57P01) and the connection it leaves behind are 503s', async () => {
    const client = new pg.Client({ connectionString: inject('postgresUrl') });
    client.on('error', () => undefined);
    await client.connect();
    const terminated = await rejectionOf(() => client.query('SELECT pg_terminate_backend(pg_backend_pid())'));
    expect((terminated as { code?: string }).code).toBe('57P01');
    expect(connectionFailureOf(terminated)).toBe('postgres');
    expect(toAppError(terminated)).toMatchObject({ ...UNAVAILABLE, message: 'The database cannot be reached right now; retry shortly.' });

    const afterwards = await rejectionOf(() => client.query('SELECT 1'));
    expect((afterwards as Error).message).toMatch(/not queryable|Connection terminated/);
    expect(toAppError(afterwards)).toMatchObject(UNAVAILABLE);
    await client.end().catch(() => undefined);
  });

  it('a server that accepts and never answers (the pool gives up connecting) is a 503', async () => {
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${silentPort}/x`, connectionTimeoutMillis: 300 });
    const error = await rejectionOf(() => pool.query('SELECT 1'));
    await pool.end().catch(() => undefined);
    expect((error as Error).message).toMatch(/timeout/);
    expect(connectionFailureOf(error)).toBe('postgres');
    expect(toAppError(error)).toMatchObject({ ...UNAVAILABLE, message: 'The database cannot be reached right now; retry shortly.' });
  });

  it('a statement PostgreSQL refuses (not a connection problem) is a 500', async () => {
    const client = new pg.Client({ connectionString: inject('postgresUrl') });
    await client.connect();
    const error = await rejectionOf(() => client.query('SELECT * FROM no_such_table_here'));
    await client.end();
    expect((error as { code?: string }).code).toBe('42P01');
    expect(connectionFailureOf(error)).toBeUndefined();
    expect(toAppError(error)).toMatchObject({ code: 'UNEXPECTED_ERROR', status: 500, message: 'An unexpected error occurred; it has been logged.' });
  });
});

describe('toAppError — Redis', () => {
  it('a fail-fast client with no server: the command and the connection error are 503s', async () => {
    const redis = new Redis(`redis://127.0.0.1:${closedPort}`, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const events: Error[] = [];
    redis.on('error', (error: Error) => events.push(error));
    try {
      await new Promise((resolve) => redis.once('error', resolve));
      const error = await rejectionOf(() => redis.ping());
      expect((error as Error).message).toMatch(/^Stream isn't writeable/);
      expect(connectionFailureOf(error)).toBe('redis');
      expect(toAppError(error)).toMatchObject({ ...UNAVAILABLE, message: 'The job queue cannot be reached right now; retry shortly.' });
      expect((events[0] as Error & { code?: string }).code).toBe('ECONNREFUSED');
      expect(toAppError(events[0])).toMatchObject(UNAVAILABLE);
    } finally {
      redis.disconnect();
    }
  });

  it('a queueing client that runs out of retries (MaxRetriesPerRequestError) is a 503', async () => {
    const redis = new Redis(`redis://127.0.0.1:${closedPort}`, { maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    try {
      const error = await rejectionOf(() => redis.ping());
      expect((error as Error).name).toBe('MaxRetriesPerRequestError');
      expect(toAppError(error)).toMatchObject({ ...UNAVAILABLE, message: 'The job queue cannot be reached right now; retry shortly.' });
    } finally {
      redis.disconnect();
    }
  });

  it('a command on a closed connection ("Connection is closed.") is a 503', async () => {
    const redis = new Redis(inject('redisUrl'));
    await redis.ping();
    redis.disconnect();
    const error = await rejectionOf(() => redis.ping());
    expect((error as Error).message).toBe('Connection is closed.');
    expect(toAppError(error)).toMatchObject({ ...UNAVAILABLE, message: 'The job queue cannot be reached right now; retry shortly.' });
  });

  it('a Redis reply error that is about the command (WRONGTYPE) is a 500', async () => {
    const redis = new Redis(inject('redisUrl'));
    const key = `fv-errors-${process.pid}`;
    try {
      await redis.set(key, 'x', 'PX', 10_000);
      const error = await rejectionOf(() => redis.lpush(key, 'y'));
      expect((error as Error).message).toMatch(/^WRONGTYPE/);
      expect(toAppError(error)).toMatchObject({ code: 'UNEXPECTED_ERROR', status: 500 });
    } finally {
      await redis.del(key);
      redis.disconnect();
    }
  });
});

describe('toAppError — object storage', () => {
  it('a store that cannot take the file (StorageWriteError) is a 503', async () => {
    // A folder that is a file: every write under it fails.
    const blocked = join(scratch, 'a-file');
    writeFileSync(blocked, 'not a folder');
    const error = await rejectionOf(() => new FsStorage(blocked).put('exports/1.pdf', Buffer.from('x'), 'application/pdf'));
    expect((error as Error).name).toBe('StorageWriteError');
    expect(connectionFailureOf(error)).toBe('storage');
    expect(toAppError(error)).toMatchObject({ ...UNAVAILABLE, message: 'The file store cannot be reached right now; retry shortly.' });
  });

  it('an S3 store that is not listening is a 503, on a write and on a read', async () => {
    const storage = new MinioStorage({ endpoint: `http://127.0.0.1:${closedPort}`, accessKey: 'access-key', secretKey: 'secret-key-value', bucket: 'fv-errors' });
    const written = await rejectionOf(() => storage.put('exports/1.pdf', Buffer.from('x'), 'application/pdf'));
    expect(connectionFailureOf(written)).toBe('storage');
    expect(toAppError(written)).toMatchObject({ ...UNAVAILABLE, message: 'The file store cannot be reached right now; retry shortly.' });
    const read = await rejectionOf(() => storage.get('exports/1.pdf'));
    expect(toAppError(read)).toMatchObject(UNAVAILABLE);
  });
});

describe('toAppError — ours and the rest', () => {
  it('passes an AppError through as it is', () => {
    const error = new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body.');
    expect(toAppError(error)).toBe(error);
    const unavailable = AppError.unavailable('The request is still being processed; retry shortly.', 1);
    expect(toAppError(unavailable)).toBe(unavailable);
  });

  it('answers anything else 500 UNEXPECTED_ERROR, keeping the error as the cause only', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    const answer = toAppError(bug);
    expect(answer).toMatchObject({ code: 'UNEXPECTED_ERROR', status: 500, message: 'An unexpected error occurred; it has been logged.' });
    expect(answer.retryAfterSeconds).toBeUndefined();
    expect(answer.cause).toBe(bug);
    expect(toAppError('a string')).toMatchObject({ code: 'UNEXPECTED_ERROR', status: 500 });
    expect(toAppError(undefined)).toMatchObject({ code: 'UNEXPECTED_ERROR', status: 500 });
  });

  it('finds a connection failure in the cause of a wrapping error', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${closedPort}/x` });
    const refused = await rejectionOf(() => client.connect());
    const wrapped = new Error('the import could not finish', { cause: refused });
    expect(toAppError(wrapped)).toMatchObject(UNAVAILABLE);
  });

  it("answers a request Express could not read with its 4xx: a client that went away mid-body is not a store's outage", () => {
    const aborted = Object.assign(new Error('request aborted'), { status: 400, code: 'ECONNABORTED', type: 'request.aborted' });
    expect(toAppError(aborted)).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    const tooLarge = Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large' });
    expect(toAppError(tooLarge)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    let uriError: unknown;
    try {
      decodeURIComponent('%zz');
    } catch (error) {
      uriError = Object.assign(error as Error, { status: 400 });
    }
    expect(toAppError(uriError)).toMatchObject({ code: 'INVALID_REQUEST', status: 400, fieldErrors: [{ path: 'path', message: 'is not valid percent-encoding' }] });
  });
});

describe('errorDetails of a validation error (docs/api.md#errors)', () => {
  const ONE_SENTENCE = /^[^\r\n]+[.!?]$/;
  const SECOND_SENTENCE = /[.!?] +\p{Lu}/u;

  it('names the one field error as one sentence', () => {
    const error = AppError.invalid([{ path: 'sourceKind', message: 'must be one of RESERVATION, HOUSE_ACCOUNT, GROUP_PROFILE, ACCOUNTS_RECEIVABLE_LEDGER' }]);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(error.message).toBe('sourceKind: must be one of RESERVATION, HOUSE_ACCOUNT, GROUP_PROFILE, ACCOUNTS_RECEIVABLE_LEDGER.');
  });

  it('names the first of several and counts the others', () => {
    const fieldErrors = [
      { path: 'transactions.0.currency', message: 'must be an ISO 4217 currency code such as "EUR"' },
      { path: 'transactions.1.serviceDate', message: 'must be a date YYYY-MM-DD' },
      { path: 'property.timezone', message: 'must be an IANA time zone such as "Europe/Madrid"' },
    ];
    expect(AppError.invalid(fieldErrors).message).toBe('transactions.0.currency: must be an ISO 4217 currency code such as "EUR" (and 2 more field errors).');
    expect(describeFieldErrors(fieldErrors.slice(0, 2))).toBe('transactions.0.currency: must be an ISO 4217 currency code such as "EUR" (and 1 more field error).');
  });

  it('lists at most 100 field errors and counts every one', () => {
    const fieldErrors = Array.from({ length: 1_234 }, (_, i) => ({ path: `transactions.${i}.id`, message: 'is required' }));
    const error = AppError.invalid(fieldErrors);
    expect(error.fieldErrors).toEqual(fieldErrors.slice(0, 100));
    expect(error.message).toBe('transactions.0.id: is required (and 1,233 more field errors; the first 100 are listed).');
    expect(AppError.invalid(fieldErrors.slice(0, 100)).message).toBe('transactions.0.id: is required (and 99 more field errors).');
  });

  it('drops a full stop the message already has, and keeps explicit details', () => {
    expect(describeFieldErrors([{ path: 'body', message: 'is not valid JSON.' }])).toBe('body: is not valid JSON.');
    expect(AppError.invalid([{ path: 'body', message: 'is not valid JSON' }], 'The request body is not valid JSON.').message).toBe('The request body is not valid JSON.');
    expect(describeFieldErrors([])).toBe('The request is not valid.');
  });

  it("words zod's issues as clauses, so errorDetails stays one sentence", () => {
    const schema = z.strictObject({
      kind: z.enum(['A', 'B']),
      name: z.string().max(3),
      tags: z.array(z.string()).min(1),
      id: z.uuid(),
      count: z.int(),
      when: z.iso.date(),
      flag: z.boolean(),
      needed: z.string(),
    });
    const result = schema.safeParse({ kind: 'C', name: 'long', tags: [], id: 'x', count: 1.5, when: '2026-13-01', flag: 'yes', extra: 1 });
    const fieldErrors = result.error!.issues.map((issue) => ({ path: issue.path.join('.') || '(body)', message: issue.message }));
    expect(fieldErrors).toEqual([
      { path: 'kind', message: 'must be one of A, B' },
      { path: 'name', message: 'must be at most 3 characters' },
      { path: 'tags', message: 'must have at least 1 item' },
      { path: 'id', message: 'must be a UUID' },
      { path: 'count', message: 'must be an integer' },
      { path: 'when', message: 'must be a date YYYY-MM-DD' },
      { path: 'flag', message: 'must be a boolean' },
      { path: 'needed', message: 'is required' },
      { path: '(body)', message: 'has unknown field extra' },
    ]);
    const details = AppError.invalid(fieldErrors).message;
    expect(details).toBe('kind: must be one of A, B (and 8 more field errors).');
    for (const fieldError of fieldErrors) {
      const sentence = describeFieldErrors([fieldError]);
      expect(sentence).toMatch(ONE_SENTENCE);
      expect(sentence).not.toMatch(SECOND_SENTENCE);
    }
  });
});

describe('toErrorBody — the last line against card numbers', () => {
  it('masks a Luhn-valid run of 13 to 19 digits in errorDetails and in field errors, and leaves public test numbers, UUIDs and other digits', () => {
    // A Visa-shaped, Luhn-valid number made at run time (no card number is written in the source),
    // its grouped form, the same digits as a UUID's groups, and the same with a wrong check digit.
    const pan = generatedPan('453201', 16);
    const masked = `${pan.slice(0, 6)}******${pan.slice(-4)}`;
    const grouped = pan.match(/.{4}/g)!.join(' ');
    const uuid = `00000000-${pan.match(/.{4}/g)!.join('-')}00000000`;
    const notLuhn = `${pan.slice(0, -1)}${(Number(pan.at(-1)) + 1) % 10}`;
    const untouched = `must not be ${uuid}, 4111111111111111 or ${notLuhn}`;
    const error = AppError.invalid(
      [
        { path: `items.${pan}`, message: `must not be ${grouped}` },
        { path: 'requestId', message: untouched },
      ],
      `${pan}: bad.`,
    );
    const body = toErrorBody(error, 'req-1', new Date('2026-11-22T06:04:06.420Z'));
    expect(body).toEqual({
      id: 'req-1',
      timestamp: '2026-11-22T06:04:06.420Z',
      errorCode: 'INVALID_REQUEST',
      errorDetails: `${masked}: bad.`,
      fieldErrors: [
        { path: `items.${masked}`, message: `must not be ${masked}` },
        { path: 'requestId', message: untouched },
      ],
    });
  });
});
