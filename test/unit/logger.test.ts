import { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
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
