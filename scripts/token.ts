// `npm run token -- --property 1 [--property 2 …] [--scope "read:payment write:payment"] [--ttl 3600] [--sub NAME]`
// (`--property '*' --scope admin` for the operator's token)
// Prints one signed development JWT (HS256, JWT_SECRET) and nothing else on stdout; stderr says it
// is for development (production tokens come from the operator's issuer, docs/production.md).

import { fail as failWith, parseCommandLine } from './cli-support.js';

const COMMAND = 'token';
const USAGE = `
usage: npm run -s token -- --property ID [--property ID …] [--scope SCOPES] [--ttl SECONDS] [--sub NAME]
       npm run -s token -- --property '*' --scope admin      (the operator's token)

Prints one signed development JWT (HS256 with JWT_SECRET; from .data/dev-keys.json when unset) on stdout.
For development only: in production clients and operators get their tokens from the identity
provider whose keys JWT_JWKS_URL or JWT_PUBLIC_KEY names (docs/production.md#tokens-from-a-real-issuer).
  --property ID    a property the token may act for (repeat for several); '*' alone: every property
  --scope SCOPES   space-separated scopes (default "read:payment write:payment")
  --ttl SECONDS    lifetime (default 3600)
  --sub NAME       the token's subject (default developer)
Exit code 0 = printed, 2 = bad arguments.`;
const { values } = parseCommandLine(COMMAND, USAGE, {
  options: {
    property: { type: 'string', multiple: true, default: [] },
    scope: { type: 'string', default: 'read:payment write:payment' },
    ttl: { type: 'string', default: '3600' },
    sub: { type: 'string', default: 'developer' },
  },
});
// What the work needs loads once the command line is read (cli-support.ts).
const [{ default: jwt }, { withDevKeys }] = await Promise.all([import('jsonwebtoken'), import('@folio-vault/shared/dev-keys')]);

function fail(message: string): never {
  return failWith(COMMAND, message);
}

// `--property '*'` alone: the operator's token (property_ids ["*"]), the only one the admin scope works on.
const operator = values.property.length === 1 && values.property[0] === '*';
const propertyIds: Array<number | '*'> = operator ? ['*'] : values.property.map((value) => {
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1) fail(`--property must be a positive integer, or '*' alone (got "${value}")`);
  return Number(value);
});
if (propertyIds.length === 0) fail('give at least one --property');
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl < 1) fail('--ttl must be a positive number of seconds');

// The development secret is read from (or generated into) .data/dev-keys.json only when unset.
const env = process.env.JWT_SECRET ? process.env : withDevKeys(process.env, { log: (line) => console.error(line) });
if (!env.JWT_SECRET) fail('JWT_SECRET is not set (development keys are not generated when NODE_ENV=production)');

console.error(`${COMMAND}: a development token (HS256, JWT_SECRET); production tokens come from your identity provider (docs/production.md)`);
process.stdout.write(
  `${jwt.sign({ scope: values.scope, property_ids: propertyIds }, env.JWT_SECRET, {
    algorithm: 'HS256',
    expiresIn: ttl,
    subject: values.sub,
    issuer: env.JWT_ISSUER ?? 'folio-vault',
    audience: env.JWT_AUDIENCE ?? 'folio-vault',
  })}\n`,
);
