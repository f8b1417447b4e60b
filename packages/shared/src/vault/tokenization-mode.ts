import type { TTokenizationMode } from './schemas.js';

/**
 * The mode a vault request acts in, from its SVC-Tokenization-Mode header: "test" is test mode and
 * absent is live (docs/vault.md#test-and-live). Any other value is no mode at all: the route's
 * schema refuses the request, and the audit event of that refusal records none. The routes (whose
 * schema has let only "test" through) and the audit trail (which sees every request) both ask here.
 */
export function tokenizationModeOf(header: 'test' | undefined): TTokenizationMode;
export function tokenizationModeOf(header: string | undefined): TTokenizationMode | undefined;
export function tokenizationModeOf(header: string | undefined): TTokenizationMode | undefined {
  if (header === undefined) return 'live';
  return header === 'test' ? 'test' : undefined;
}
