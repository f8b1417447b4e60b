// What a browser gets from /admin/queues (and the delivery panel) without a usable token: a short
// page that says how to sign in, status 401, instead of the JSON error an API client reads. The
// choice follows Accept: only a request that prefers HTML to JSON gets the page.

import type { NextFunction, Request, Response } from 'express';
import { toAppError } from '@folio-vault/shared/errors';
import { startErrorAnswer } from '../http/error-handler.js';
import { escapeHtml } from './html.js';

/** The command that makes the operator's token in development (scripts/token.ts). */
export const OPERATOR_TOKEN_COMMAND = "npm run token -- --property '*' --scope admin";

export function renderSignInPage(paths: { dashboard: string; deliveryPanel: string }, reason: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Folio Vault queues: sign in</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:46rem;line-height:1.5}code,pre{font-family:ui-monospace,monospace}pre{background:#f3f3f3;padding:.5rem .8rem}</style>
</head><body><h1>Sign in to the queue dashboard</h1>
<p>The queue dashboard and the delivery panel show every property, so they open with the operator's token: a JWT with the <code>admin</code> scope and <code>property_ids: ["*"]</code>. With the development key or <code>JWT_SECRET</code>, make one with</p>
<pre>${escapeHtml(OPERATOR_TOKEN_COMMAND)}</pre>
<p>and open <code>${escapeHtml(paths.dashboard)}?token=&lt;the token&gt;</code>, or paste it here:</p>
<form method="get"><label>Token <input name="token" type="password" autocomplete="off" required></label> <button type="submit">Sign in</button></form>
<p>The token moves into a cookie that opens <code>${escapeHtml(paths.dashboard)}</code> only, and leaves the address bar. Then:
<a href="${escapeHtml(paths.dashboard)}">the queues</a> · <a href="${escapeHtml(paths.deliveryPanel)}">the delivery panel</a>.</p>
<p id="reason">Not signed in: ${escapeHtml(reason)}</p>
</body></html>`;
}

/**
 * An error handler for the dashboard's path: a 401 to a GET that prefers HTML is answered with the
 * sign-in page (same status and headers as the JSON error); anything else goes on to the app's
 * error handler.
 */
export function signInPage(paths: { dashboard: string; deliveryPanel: string }) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const appError = toAppError(error);
    const browser = (req.method === 'GET' || req.method === 'HEAD') && req.accepts(['json', 'html']) === 'html';
    if (appError.code !== 'UNAUTHENTICATED' || !browser || res.headersSent) return next(error);
    startErrorAnswer(appError, res).set('Cache-Control', 'no-store').type('html').send(renderSignInPage(paths, appError.message));
  };
}
