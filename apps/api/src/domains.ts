import type { Router } from 'express';
import type { TRoute } from './http/route.js';
import { EXPORT_ROUTES, exportRoutes, type TExportDeps } from './exports/routes.js';
import { FISCAL_ROUTES, fiscalRoutes, type TFiscalDeps } from './fiscal/routes.js';
import { LEDGER_ROUTES, ledgerRoutes, type TLedgerDeps } from './ledger/routes.js';
import { NIGHT_AUDIT_ROUTES, nightAuditRoutes, type TNightAuditDeps } from './night-audit/routes.js';
import { OPS_ROUTES, opsRoutes, type TOpsDeps } from './ops/routes.js';
import { VAULT_ROUTES, vaultRoutes, type TVaultDeps } from './vault/routes.js';
import { WEBHOOK_ROUTES, webhookRoutes, type TWebhookDeps } from './webhooks/routes.js';

/** What the domains' routes need, together: each route takes the part of it it needs. */
export interface TDomainDeps extends TOpsDeps, TVaultDeps, TLedgerDeps, TExportDeps, TFiscalDeps, TNightAuditDeps, TWebhookDeps {}

/** A domain: the route definitions it documents, and its router (those routes, mounted, and what it adds beside them). */
export interface TDomain {
  routes: readonly TRoute<TDomainDeps>[];
  router: (deps: TDomainDeps) => Router;
}

/**
 * Every domain built from route definitions, in the order the OpenAPI document lists them:
 * app.ts mounts each router, openapi.ts documents each domain's routes, so a new domain is added
 * here once. Their paths are disjoint, so the order Express mounts them in does not matter.
 */
export const DOMAINS: readonly TDomain[] = [
  { routes: VAULT_ROUTES, router: vaultRoutes },
  { routes: LEDGER_ROUTES, router: ledgerRoutes },
  { routes: EXPORT_ROUTES, router: exportRoutes },
  { routes: FISCAL_ROUTES, router: fiscalRoutes },
  { routes: NIGHT_AUDIT_ROUTES, router: nightAuditRoutes },
  { routes: WEBHOOK_ROUTES, router: webhookRoutes },
  { routes: OPS_ROUTES, router: opsRoutes },
];
