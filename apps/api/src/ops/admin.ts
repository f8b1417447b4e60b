import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { AppViewRoute } from '@bull-board/api/typings/app';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { AppError } from '@folio-vault/shared/errors';
import type { TPgPool } from '@folio-vault/shared/connections';
import { assertScope, authenticate } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import { SCOPES } from '../auth/principal.js';
import { DELIVERY_PANEL_PATH, deliveryPanel } from './delivery-panel.js';
import { signInPage } from './sign-in-page.js';

/** Where the queue dashboard lives, and the cookie that carries its JWT in a browser. */
export const DASHBOARD_PATH = '/admin/queues';
export const DASHBOARD_COOKIE = 'folio_admin_token';

export interface TAdminDeps {
  verifier: TJwtVerifier;
  /** Every queue the service has (one list: QUEUE_NAMES), shown read-only by the dashboard. */
  queues: readonly Queue[];
  /** Mark the dashboard cookie Secure (production). */
  secureCookies: boolean;
  /** The database every process shares: the delivery panel reads its figures there, whichever process did the work. */
  pool: TPgPool;
}

/** Job fields the dashboard never shows, even sealed. */
const HIDDEN_DATA_FIELDS = new Set(['sealedCard']);

function hideSealed(data: unknown): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, HIDDEN_DATA_FIELDS.has(key) ? '[sealed]' : value]));
}

/** Seconds until the JWT's `exp` (it has been verified already), so the cookie ends with it. */
function secondsLeft(jwt: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? Math.max(0, Math.floor(payload.exp - Date.now() / 1000)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `GET /admin/queues?token=<JWT>` (a browser cannot send a header when it follows the dashboard's
 * own links): an operator's admin JWT (assertScope) is moved into an HttpOnly, SameSite=Strict cookie scoped to the
 * dashboard, and the browser is sent back to the same page without the token in its URL.
 */
function tokenFromQuery(deps: TAdminDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' || !Object.hasOwn(req.query, 'token')) return next();
    const token = req.query.token;
    if (typeof token !== 'string' || token === '') return next(new AppError('UNAUTHENTICATED', 'The token parameter must be one JWT.'));
    try {
      assertScope(await deps.verifier(token), SCOPES.admin);
    } catch (error) {
      return next(error);
    }
    const maxAge = secondsLeft(token);
    res.cookie(DASHBOARD_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: deps.secureCookies,
      path: DASHBOARD_PATH,
      ...(maxAge === undefined ? {} : { maxAge: maxAge * 1000 }),
    });
    res.set('Cache-Control', 'no-store');
    // Same page, no query: the token leaves the address bar and the browser history.
    res.redirect(303, `${req.baseUrl}${req.path === '/' ? '' : req.path}`);
  };
}

/** `<link>` elements of bull-board's page that point off the service (its template's web font). */
const REMOTE_LINK = /<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>\s*/gi;

/**
 * A queue's status tabs (Latest, Active, … Delayed, Paused) wrap onto a second line when the bar
 * is too narrow for them, instead of scrolling sideways under a fade that hides the last ones (at a
 * 1,280 px window, Failed and Delayed: test/browser.test.ts measures it). bull-board's CSS modules
 * hash their class names: the selector names the module class's prefix.
 */
const DASHBOARD_STYLE = '<style>ul[class^="statusTabs-"]{flex-wrap:wrap;overflow-x:visible;-webkit-mask-image:none;mask-image:none}</style>';

/**
 * bull-board's Express adapter with a self-contained page: the UI's index template links a web
 * font on fonts.googleapis.com, and that <link> is dropped, so the page loads only what the
 * dashboard serves itself (the UI's CSS names the system's sans-serif and monospace stacks after
 * the web font); and with DASHBOARD_STYLE in its head.
 */
class SelfContainedAdapter extends ExpressAdapter {
  override setEntryRoute(routeDef: AppViewRoute): ExpressAdapter {
    this.app[routeDef.method](routeDef.route, (_req: Request, res: Response, next: NextFunction) => {
      const { name, params } = routeDef.handler({ basePath: this.basePath, uiConfig: this.uiConfig });
      this.app.render(name, params, (error: Error | null, html?: string) => {
        if (error) return next(error);
        res.type('html').send((html ?? '').replace(REMOTE_LINK, '').replace('</head>', `${DASHBOARD_STYLE}</head>`));
      });
    });
    return this;
  }
}

/**
 * The dashboard's pages load styles and fonts from the service only (helmet's defaults also allow
 * any https origin for both): a UI upgrade that links one elsewhere is refused by the browser.
 */
const ownAssetsOnly = helmet.contentSecurityPolicy({
  directives: { 'font-src': ["'self'", 'data:'], 'style-src': ["'self'", "'unsafe-inline'"] },
});

/**
 * docs/api.md#operations: `GET /metrics` (Prometheus text; admin JWT or METRICS_TOKEN) and the BullMQ
 * dashboard at /admin/queues (admin JWT as a bearer header or the dashboard cookie; read-only), with
 * the delivery panel at /admin/queues/delivery (delivery-panel.ts) behind the same check.
 */
export function adminRoutes(deps: TAdminDeps): Router {
  const router = Router();

  const board = new SelfContainedAdapter().setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: deps.queues.map((queue) => {
      const adapter = new BullMQAdapter(queue, { readOnlyMode: true });
      adapter.setFormatter('data', hideSealed);
      return adapter;
    }),
    serverAdapter: board,
    // The delivery panel is linked from the menu in the dashboard's header (a relative link: the board's base is DASHBOARD_PATH/).
    options: { uiConfig: { boardTitle: 'Folio Vault queues', miscLinks: [{ text: 'Delivery panel', url: DELIVERY_PANEL_PATH.slice(1) }] } },
  });
  const dashboard = board.getRouter() as Express;
  dashboard.disable('x-powered-by');

  router.use(
    DASHBOARD_PATH,
    ownAssetsOnly,
    tokenFromQuery(deps),
    authenticate(deps.verifier, SCOPES.admin, { cookie: DASHBOARD_COOKIE }),
    (_req: Request, res: Response, next: NextFunction) => {
      res.set('Cache-Control', 'no-store');
      next();
    },
    deliveryPanel(deps.pool),
    dashboard,
    // Without a usable token a browser gets a page saying how to sign in; API clients the JSON 401.
    signInPage({ dashboard: DASHBOARD_PATH, deliveryPanel: `${DASHBOARD_PATH}${DELIVERY_PANEL_PATH}` }),
  );
  return router;
}
