/** Who is calling, as the verified JWT says (docs/api.md#authentication-and-scopes). */
export interface TPrincipal {
  subject: string;
  scopes: ReadonlySet<string>;
  /** Canonical decimal strings, comparable with parsed X-Property-Id values. */
  propertyIds: ReadonlySet<string>;
  /**
   * The operator's token: `property_ids: ["*"]`, bound to no property. Only it may use the `admin`
   * scope, whose routes show every property; it acts for no property itself (propertyIds is empty).
   */
  operator: boolean;
}

export const SCOPES = {
  writePayment: 'write:payment',
  readPayment: 'read:payment',
  /** Forward a token to a payment gateway: never implied by another scope (docs/api.md#scopes). */
  usePayment: 'use:payment',
  /** The queue dashboard, the delivery panel and /metrics: every property's data, so only on an operator token. */
  admin: 'admin',
} as const;

export type TScope = (typeof SCOPES)[keyof typeof SCOPES];

declare module 'express-serve-static-core' {
  interface Request {
    principal?: TPrincipal;
  }
}
