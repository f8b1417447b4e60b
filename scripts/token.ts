// `npm run token -- --property 1 [--property 2 …] [--scope "read:payment write:payment"] [--ttl 3600] [--sub NAME]`
// (`--property '*' --scope admin` for the operator's token)
// Prints one signed development JWT (HS256, JWT_SECRET) and nothing else on stdout.

import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import { withDevKeys } from '@folio-vault/shared/dev-keys';

const { values } = parseArgs({
  options: {
    property: { type: 'string', multiple: true, default: [] },
    scope: { type: 'string', default: 'read:payment write:payment' },
    ttl: { type: 'string', default: '3600' },
    sub: { type: 'string', default: 'developer' },
  },
});

function fail(message: string): never {
  console.error(`token: ${message}`);
  process.exit(2);
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

process.stdout.write(
  `${jwt.sign({ scope: values.scope, property_ids: propertyIds }, env.JWT_SECRET, {
    algorithm: 'HS256',
    expiresIn: ttl,
    subject: values.sub,
    issuer: env.JWT_ISSUER ?? 'folio-vault',
    audience: env.JWT_AUDIENCE ?? 'folio-vault',
  })}\n`,
);
