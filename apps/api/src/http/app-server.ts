import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * The API's HTTP server: requests and responses are created with the app's prototypes
 * (`app.request`, `app.response`) rather than given them once they arrive.
 *
 * Express gives every request and response its prototypes with `Object.setPrototypeOf` (its
 * application.js, `handle`). In V8 an object whose prototype was changed, and everything it
 * reaches, survives the young generation's collections until the next full one: at 300 tokenize
 * requests a second the API kept about 1.6 MB of each 12 MB it allocated through every scavenge
 * and ran 7 full collections in 25 seconds; a bare `http` server under the same load kept next to
 * nothing (bench/changes.md, seventh round). Created with the right prototype, a request goes
 * through Express unchanged: its `setPrototypeOf` sets the prototype the object already has.
 *
 * Node's IncomingMessage and ServerResponse are constructor functions, so the two below are too
 * (a class's `prototype` cannot be assigned, and `Reflect.construct` with a function as new.target
 * made objects that survived as well). Should a Node release turn them into classes, which cannot
 * be called without `new`, the server is Node's own and only the collections are back.
 */
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
