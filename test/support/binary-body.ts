import type { IncomingMessage } from 'node:http';
import type request from 'supertest';

/**
 * A supertest parser (`.buffer(true).parse(binaryBody)`) that keeps a file answer as bytes, and still
 * parses an error answer (JSON) as JSON so its errorCode can be read.
 */
export function binaryBody(response: request.Response, callback: (error: Error | null, body: unknown) => void): void {
  // Superagent hands parsers the Node response stream.
  const res = response as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => {
    const body = Buffer.concat(chunks);
    if (!/json/.test(res.headers['content-type'] ?? '')) return callback(null, body);
    try {
      callback(null, JSON.parse(body.toString('utf8')));
    } catch (error) {
      callback(error as Error, body);
    }
  });
}
