// A vitest setup file (vitest.config.ts): every answer a test receives through supertest is checked
// against the OpenAPI document (openapi-answers.ts) before the test's own assertions run, and the
// request fails with the list of what the document does not describe. The tests stay as written.
//
// OPENAPI_ANSWERS_REPORT=<file> appends "<test file> <answers checked> <answers not judged>" per
// file, to count what the suite validated (not judged: /docs, /admin/queues, servers other than the
// API).

import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';
import supertest from 'supertest';
import { afterAll, expect } from 'vitest';
import { answerProblems, isApiOrigin } from './openapi-answers.js';

type TAssert = (this: TTest, resError: unknown, res: TResponse | undefined, fn?: (err: unknown, res: unknown) => void) => void;
interface TResponse {
  status: number;
  text?: unknown;
  get: (name: string) => string | undefined;
}
interface TTest {
  method: string;
  url: string;
}

const counts = { checked: 0, skipped: 0 };
let testFile: string | undefined;
const Test = (supertest as unknown as { Test: { prototype: { assert: TAssert } } }).Test;
const assert = Test.prototype.assert;

Test.prototype.assert = function (this: TTest, resError, res, fn) {
  if (!res) return assert.call(this, resError, res, fn);
  // Only the API's answers (support/world.ts registers its origin), and only those its app gave: every
  // one of them has an X-Request-Id, which Node's own parser errors (431) do not.
  const fromApi = isApiOrigin(this.url) && res.get('x-request-id') !== undefined;
  const problems = !fromApi ? undefined : answerProblems({
    method: this.method,
    path: new URL(this.url).pathname,
    status: res.status,
    header: (name) => res.get(name),
    text: typeof res.text === 'string' ? res.text : undefined,
  });
  testFile ??= expect.getState().testPath;
  if (problems === undefined) counts.skipped += 1;
  else counts.checked += 1;
  if (problems?.length) {
    const error = new Error(`${this.method} ${new URL(this.url).pathname} → ${res.status} is not what /openapi.json describes:\n  ${problems.join('\n  ')}`);
    return fn?.call(this, error, res);
  }
  return assert.call(this, resError, res, fn);
};

afterAll(() => {
  const report = process.env.OPENAPI_ANSWERS_REPORT;
  if (report && testFile) appendFileSync(report, `${basename(testFile)} ${counts.checked} ${counts.skipped}\n`);
});
