import { createServer, connect, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConnectionLog, watchPgPool } from '@folio-vault/shared/connection-log';
import { createLogger } from '@folio-vault/shared/logger';

/**
 * The connection log against a real outage: PostgreSQL reached through a TCP relay of the test's
 * own, which it closes (every connection cut, nothing listening) and opens again on the same port.
 */
const target = new URL(inject('postgresUrl'));
let relay: Server | undefined;
let port = 0;
const sockets = new Set<Socket>();

async function relayUp(): Promise<void> {
  relay = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay!.listen(port, '127.0.0.1', resolve));
  port = (relay.address() as { port: number }).port;
}

async function relayDown(): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => relay?.close(resolve));
}

beforeAll(relayUp);
afterAll(relayDown);

describe('connection log', () => {
  it('logs a PostgreSQL outage as two lines: the loss with its first error, the recovery with the count of the rest', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    });
    const connections = new ConnectionLog(createLogger({ destination: destination as DestinationStream & Writable }), 100);
    const pool = watchPgPool(new pg.Pool({ connectionString: `postgres://${target.username}@127.0.0.1:${port}${target.pathname}`, max: 2 }), connections);
    try {
      await relayDown();
      const failures = await Promise.all(Array.from({ length: 5 }, () => pool.query('SELECT 1').then(() => 'answered', (error: Error) => error.message)));
      expect(failures.every((message) => /ECONNREFUSED/.test(message))).toBe(true);
      await relayUp();
      const deadline = Date.now() + 10_000;
      while (!lines.some((line) => line.store === 'postgres' && line.level === 30) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);

      expect(lines.map((line) => [line.level, line.msg])).toEqual([
        [40, 'postgres unavailable'],
        [30, expect.stringMatching(/^postgres available again after \d+ ms, 4 errors suppressed$/)],
      ]);
      expect(lines[0]).toMatchObject({ store: 'postgres', code: 'ECONNREFUSED', reason: expect.stringContaining('ECONNREFUSED') });
      expect(lines[1]).toMatchObject({ store: 'postgres', suppressed: 4, downMs: expect.any(Number) });
    } finally {
      connections.close();
      await pool.end();
    }
  });
});
