import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino, type DestinationStream } from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { toAppError, toErrorBody } from '@folio-vault/shared/errors';
import { createLogger, wantsPrettyLogs } from '@folio-vault/shared/logger';
import { redactPans } from '@folio-vault/shared/vault/card/redact-pan';

/** A destination that keeps what is written, and resolves once `lines` lines have arrived. */
function sink(lines = 1): { stream: DestinationStream & Writable; text: () => string; done: Promise<void> } {
  let text = '';
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      if (text.split('\n').length > lines) resolve();
      callback();
    },
  });
  return { stream: stream as DestinationStream & Writable, text: () => text, done };
}

describe('logger', () => {
  it('wants pretty lines only at a terminal outside production and tests', () => {
    expect(wantsPrettyLogs({ NODE_ENV: 'development' }, { isTTY: true })).toBe(true);
    expect(wantsPrettyLogs({}, { isTTY: true })).toBe(true);
    expect(wantsPrettyLogs({ NODE_ENV: 'production' }, { isTTY: true })).toBe(false);
    expect(wantsPrettyLogs({ NODE_ENV: 'test' }, { isTTY: true })).toBe(false);
    expect(wantsPrettyLogs({ NODE_ENV: 'development', VITEST: 'true' }, { isTTY: true })).toBe(false);
    // A pipe (a log collector, a test reading a child's output): JSON.
    expect(wantsPrettyLogs({ NODE_ENV: 'development' }, { isTTY: false })).toBe(false);
    expect(wantsPrettyLogs({ NODE_ENV: 'development' }, {})).toBe(false);
  });

  it('writes one JSON object per line by default, with card numbers masked', async () => {
    const out = sink();
    createLogger({ destination: out.stream, name: 'folio-vault-api' }).warn({ path: '/vault/4111111111111111' }, 'redis unavailable');
    await out.done;
    const line = JSON.parse(out.text().split('\n')[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 40, name: 'folio-vault-api', msg: 'redis unavailable', path: '/vault/411111******1111' });
  });

  it('keeps a request id whole even when its digit groups read as a card number', async () => {
    // 567330 0004 4031 is a Luhn-valid 14-digit Maestro-range number once the dashes are dropped.
    const requestId = '5f567330-0004-4031-b96e-de59c2c2f485';
    const out = sink();
    createLogger({ destination: out.stream, name: 'folio-vault-api' }).info({ requestId, path: '/vault/4111111111111111' }, 'done');
    await out.done;
    const line = JSON.parse(out.text().split('\n')[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ requestId, path: '/vault/411111******1111' });
    expect(redactPans('id 567330-0004-4031 end')).toBe('id 567330****4031 end');
  });

  it('writes a reason logged as an object without a blank stack or an "Object" type, and an Error with both', async () => {
    const out = sink(3);
    const logger = createLogger({ destination: out.stream });
    logger.warn({ err: { message: 'webhook attempt 1 failed: connect ECONNREFUSED 127.0.0.1:4000' } }, 'job failed');
    logger.warn({ err: { type: 'WebhookAttemptFailed', message: 'answered 500' } }, 'job failed');
    logger.error({ err: new RangeError('out of range') }, 'unexpected error');
    await out.done;
    const [reason, typed, error] = out.text().trim().split('\n').map((line) => (JSON.parse(line) as { err: Record<string, unknown> }).err);
    expect(reason).toEqual({ message: 'webhook attempt 1 failed: connect ECONNREFUSED 127.0.0.1:4000' });
    expect(typed).toEqual({ type: 'WebhookAttemptFailed', message: 'answered 500' });
    expect(error).toEqual({ type: 'RangeError', message: 'out of range', stack: expect.stringMatching(/^RangeError: out of range\n {4}at /) });
  });

  it('writes a line a person reads when pretty, masked the same way', async () => {
    const out = sink();
    createLogger({ destination: out.stream, pretty: true, name: 'folio-vault-api' }).warn({ path: '/vault/4111111111111111' }, 'redis unavailable');
    await out.done;
    const text = out.text();
    expect(text.startsWith('{')).toBe(false);
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN \(folio-vault-api\): redis unavailable\n/);
    expect(text).toContain('path: "/vault/411111******1111"');
    expect(text).not.toContain('4111111111111111');
  });
});

/**
 * PostgreSQL errors whose fields quote row data (detail, where, hint, internalQuery), provoked on a
 * real server with a marker in the data; each is logged as the service logs errors (the error
 * handler's `err`, a child logger with pino's own error serializer as pino-http makes one, an
 * AggregateError's attempts) and answered as the API answers it.
 */
describe('PostgreSQL errors', () => {
  async function provoke(marker: string): Promise<Array<Error & { code?: string; detail?: string; where?: string; hint?: string; internalQuery?: string }>> {
    const client = new pg.Client({ connectionString: inject('postgresUrl') });
    await client.connect();
    const failure = (sql: string, values: unknown[] = []) =>
      client.query(sql, values).then(
        () => {
          throw new Error(`${sql} did not fail`);
        },
        (error: unknown) => error as Error,
      );
    try {
      await client.query('CREATE TEMP TABLE guests (name text UNIQUE)');
      await client.query('INSERT INTO guests VALUES ($1)', [marker]);
      return [
        // 23505: detail "Key (name)=(<marker>) already exists."
        await failure('INSERT INTO guests VALUES ($1)', [marker]),
        // 22P05, a NUL in JSON text: where "JSON data, line 1: {"text": "<marker>\\u0000..."
        await failure('SELECT $1::jsonb', [`{"text": "${marker}\\u0000"}`]),
        // P0001 with detail and hint; 22012 inside PL/pgSQL: internalQuery holds the statement
        await failure(`DO $$ BEGIN RAISE EXCEPTION 'refused' USING DETAIL = '${marker}', HINT = '${marker}'; END $$`),
        await failure(`DO $$ BEGIN PERFORM 1 / 0 WHERE '${marker}' <> ''; END $$`),
      ];
    } finally {
      await client.end();
    }
  }

  it('are logged and answered without their detail, where, hint or internalQuery', async () => {
    const marker = `rowdata${randomBytes(4).toString('hex')}`;
    const errors = await provoke(marker);
    const quoted = (error: (typeof errors)[number]) => [error.detail, error.where, error.hint, error.internalQuery].filter((field) => field?.includes(marker)).length;
    expect(errors.map((error) => [error.code, quoted(error)])).toEqual([
      ['23505', 1],
      ['22P05', 1],
      ['P0001', 2],
      ['22012', 1],
    ]);

    const out = sink(errors.length * 3);
    const logger = createLogger({ destination: out.stream, name: 'folio-vault-api' });
    const httpChild = logger.child({}, { serializers: { err: pino.stdSerializers.err } });
    for (const error of errors) {
      logger.error({ err: error }, 'unexpected error');
      httpChild.error({ err: error }, 'unexpected error');
      logger.error({ err: new AggregateError([error], 'every attempt failed') }, 'worker error');
    }
    await out.done;
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(errors.length * 3);
    expect(lines.filter((line) => line.includes(marker))).toEqual([]);
    // What a person needs to find the fault stays: the code, the message, the constraint.
    expect(JSON.parse(lines[0]!).err).toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "guests_name_key"', detail: '[redacted]', constraint: 'guests_name_key' });

    const answers = errors.map((error) => JSON.stringify(toErrorBody(toAppError(error), 'request-1')));
    expect(answers.filter((answer) => answer.includes(marker))).toEqual([]);
  });
});
