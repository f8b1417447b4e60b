// A real webhook receiver for tests: an HTTP server on 127.0.0.1 that verifies every delivery with
// `new Webhook(secret).verify(body, headers)` (standardwebhooks) under the secret registered for
// its path, and records it. A path's behaviour: answer 200, answer 500 a number of times first,
// never answer (the socket stays open until the server closes), or hold the answer until the test
// releases it with a status (release).

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver got it: its path, webhook-id, whether its signature verified, its body and headers. */
export interface TReceived {
  path: string;
  webhookId: string;
  verified: boolean;
  body: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
  headers: IncomingHttpHeaders;
}

type TBehaviour = { kind: 'ok' } | { kind: 'fail-first'; times: number } | { kind: 'hang' } | { kind: 'hold' };

export class WebhookReceiver {
  readonly received: TReceived[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly behaviours = new Map<string, TBehaviour>();
  private readonly answered = new Map<string, number>();
  private readonly held = new Map<string, ServerResponse[]>();
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        let verified = false;
        let parsed: TReceived['body'];
        try {
          parsed = new Webhook(this.secrets.get(path) ?? 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').verify(body, req.headers as Record<string, string>) as TReceived['body'];
          verified = true;
        } catch {
          verified = false;
        }
        this.received.push({ path, webhookId: String(req.headers['webhook-id']), verified, body: parsed, headers: req.headers });
        const behaviour = this.behaviours.get(path) ?? { kind: 'ok' };
        if (behaviour.kind === 'hang') return;
        if (behaviour.kind === 'hold') {
          this.held.set(path, [...(this.held.get(path) ?? []), res]);
          return;
        }
        const count = (this.answered.get(path) ?? 0) + 1;
        this.answered.set(path, count);
        res.statusCode = behaviour.kind === 'fail-first' && count <= behaviour.times ? 500 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  register(path: string, secret: string, behaviour: TBehaviour = { kind: 'ok' }): void {
    this.secrets.set(path, secret);
    this.behaviours.set(path, behaviour);
  }

  /** Changes how a path answers from now on (its secret kept). */
  behave(path: string, behaviour: TBehaviour): void {
    this.behaviours.set(path, behaviour);
  }

  /** Answers every held request of the path with this status; answers how many there were. */
  release(path: string, statusCode: number): number {
    const waiting = this.held.get(path) ?? [];
    this.held.delete(path);
    for (const res of waiting) {
      res.statusCode = statusCode;
      res.end();
    }
    return waiting.length;
  }

  at(path: string): TReceived[] {
    return this.received.filter((entry) => entry.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
