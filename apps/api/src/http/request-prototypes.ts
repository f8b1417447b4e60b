// A kept performance measure (packages/shared/src/performance-measures.ts: `request-prototypes`):
// the API's HTTP server creates requests and responses with the app's prototypes (`app.request`,
// `app.response`) rather than have Express give them those prototypes once they arrive. Express
// does that with `Object.setPrototypeOf` (its application.js, `handle`); V8 keeps an object given
// a new prototype after its creation, and everything it reaches, through the young generation's
// collections until the next full one, so under load the API's CPU goes to collections.
// Created with the right prototype, a request goes through Express unchanged: its
// `setPrototypeOf` sets the prototype the object already has. What it buys is measured by `npm
// run bench -- --only tokenize`, against the service with
// PERFORMANCE_MEASURES_OFF=request-prototypes (node's own createServer) in the same run
// (docs/benchmarks.md).
//
// Node's IncomingMessage and ServerResponse are constructor functions, so the two below are too (a
// class's `prototype` cannot be assigned). Should a Node release turn them into classes, which
// cannot be called without `new`, the server is Node's own.

import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/** An HTTP server for `app` whose requests and responses are created with its prototypes. */
export function createAppServer(app: Express): Server {
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return createServer(app);

  // What Node passes: the socket; the request and the response's options (a high-water mark).
  const initRequest = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void;
  const initResponse = ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void;
  function AppRequest(this: IncomingMessage, socket: Socket): void {
    initRequest.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object): void {
    initResponse.call(this, req, options);
  }
  AppResponse.prototype = app.response;

  return createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    app,
  );
}

function isClass(constructor: unknown): boolean {
  return /^class\b/.test(Function.prototype.toString.call(constructor));
}
