import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The README's "Try it" session, run as written: every ```sh block between the
 * `<!-- readme-session: begin -->` and `<!-- readme-session: end -->` comments, in order, in one
 * bash (so the shell variables carry over) with `set -e -o pipefail`, against a started API and
 * worker. Two things differ from a reader's machine, on purpose: the addresses (the API's
 * `localhost:3000` and the receiver's port 4000 become free ports, as other services may hold
 * those), and the folder, a scratch one whose links reach the repository's package.json,
 * node_modules and sources, so `npm run token` reads this world's keys from its own
 * `.data/dev-keys.json` and the files the session writes stay out of the checkout.
 *
 * Each block's output (stdout and stderr as a terminal shows them) is compared with the block
 * shown after it: JSON as JSON, every key and value alike except the values that differ from run
 * to run (ids, times, sizes, digests, secrets, links), which only keep their kind; other lines as
 * text, with ids, times and byte counts standing for any.
 */
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

interface TStep {
  command: string;
  /** The answer the README shows after the command, when it shows one. */
  shown?: string;
}

function sessionSteps(markdown: string): TStep[] {
  const begin = markdown.indexOf('<!-- readme-session: begin -->');
  const end = markdown.indexOf('<!-- readme-session: end -->');
  expect(begin).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(begin);
  const steps: TStep[] = [];
  for (const [, lang, body] of markdown.slice(begin, end).matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (lang === 'sh') steps.push({ command: body! });
    else {
      const last = steps.at(-1);
      if (!last || last.shown !== undefined) throw new Error(`an answer block follows no command:\n${body}`);
      last.shown = body!;
    }
  }
  return steps;
}

/** Values that differ from one run to the next: compared by kind only. */
const VARYING = new Set([
  'id', 'exportId', 'created_at', 'createdAt', 'cvv_held_until', 'fingerprint', 'secret', 'timestamp',
  'size', 'sha256', 'downloadUrl', 'downloadUrlExpiresAt',
]);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

/** A JSON value with its varying parts replaced by their kind, so two runs' answers compare equal. */
function comparable(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => comparable(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, comparable(item, name)]));
  }
  if (key !== undefined && VARYING.has(key)) {
    if (typeof value !== 'string') return `<${typeof value}>`;
    if (/^[0-9a-f-]{36}$/.test(value)) return '<uuid>';
    if (/^\d{4}-\d\d-\d\dT/.test(value)) return '<time>';
    return `<string>`;
  }
  return value;
}

function comparableLine(line: string): string {
  return line.replace(UUID, '<uuid>').replace(ISO_TIME, '<time>').replace(/\b\d+ bytes\b/g, '<n> bytes').trim();
}

/** A block's text as a list of JSON values and text lines (a JSON value may span lines). */
function parts(text: string): unknown[] {
  const found: unknown[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    let json: { value: unknown; length: number } | undefined;
    if (rest.startsWith('{') || rest.startsWith('[')) {
      for (let endAt = rest.search(/[}\]]/) + 1; endAt > 0 && !json; endAt = rest.slice(endAt).search(/[}\]]/) + 1 + endAt) {
        try {
          json = { value: JSON.parse(rest.slice(0, endAt)), length: endAt };
        } catch {
          if (rest.slice(endAt).search(/[}\]]/) < 0) break;
        }
      }
    }
    if (json) {
      found.push(comparable(json.value));
      rest = rest.slice(json.length).trim();
    } else {
      const newline = rest.indexOf('\n');
      found.push(comparableLine(newline < 0 ? rest : rest.slice(0, newline)));
      rest = newline < 0 ? '' : rest.slice(newline + 1).trim();
    }
  }
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const DONE = '@@readme-session step done';

/** Runs the steps in one bash; answers each step's output, up to the first step that failed. */
async function runSession(steps: TStep[], cwd: string, timeoutMs: number): Promise<{ outputs: string[]; code: number | null; all: string }> {
  const script = ['exec 2>&1', 'set -e -o pipefail', ...steps.map((step) => `${step.command}\nprintf '\\n${DONE}\\n'`)].join('\n');
  // Through `| cat`: the session's stdout and stderr are a pipe, as in a reader's pipeline (a
  // terminal otherwise), where `tee /dev/stderr` can open its stderr; Node's own are sockets.
  const child = spawn('bash', ['-o', 'pipefail', '-c', 'bash -c "$0" | cat', script], {
    cwd,
    detached: true,
    // A reader's shell: no setting of the service, no key in the environment.
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? cwd, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let all = '';
  child.stdout.on('data', (chunk: Buffer) => (all += chunk.toString('utf8')));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  // The receiver runs in the background of the session: nothing it started outlives it.
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // the group is gone already
  }
  return { outputs: all.split(`\n${DONE}\n`), code, all };
}

describe("the README's session", () => {
  let world: TWorld;
  let dir: string;

  beforeAll(async () => {
    // The README's start line allows webhooks to this machine; its retry schedule is the default:
    // the session waits for its receiver to listen before it asks for the export.
    world = await createWorld({ env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    dir = mkdtempSync(join(tmpdir(), 'folio-readme-'));
    for (const name of ['package.json', 'node_modules', 'tsconfig.json', 'scripts', 'packages', 'apps']) {
      symlinkSync(join(root, name), join(dir, name));
    }
    // The keys `npm start` would have generated, as dev-keys.ts stores them: this world's.
    mkdirSync(join(dir, '.data'));
    const names = ['JWT_SECRET', 'VAULT_KEK_TEST', 'VAULT_KEK_LIVE', 'VAULT_FINGERPRINT_KEY', 'VAULT_TRANSIT_KEY', 'VAULT_JOB_SIGNING_KEY', 'EXPORT_LINK_KEY'];
    writeFileSync(join(dir, '.data/dev-keys.json'), JSON.stringify(Object.fromEntries(names.map((name) => [name, world.env[name]])), null, 2));
  });
  afterAll(async () => {
    await world?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written, every command succeeding with the answer shown', { timeout: 90_000 }, async () => {
    const steps = sessionSteps(readme);
    const receiverPort = await freePort();
    const addresses: Array<[RegExp, string]> = [
      [/localhost:3000\b/g, `127.0.0.1:${world.api.port}`],
      [/127\.0\.0\.1:4000\b/g, `127.0.0.1:${receiverPort}`],
      [/--port 4000\b/g, `--port ${receiverPort}`],
    ];
    for (const [pattern] of addresses) expect(steps.some((step) => pattern.test(step.command)), String(pattern)).toBe(true);
    const runnable = steps.map((step) => ({ ...step, command: addresses.reduce((text, [pattern, to]) => text.replace(pattern, to), step.command) }));

    const { outputs, code, all } = await runSession(runnable, dir, 75_000);
    expect({ code, completedSteps: outputs.length - 1 }, all).toEqual({ code: 0, completedSteps: steps.length });
    // All steps in one comparison, so a drift shows every step it touches at once.
    // The receiver's address comes back in the endpoint's answer: shown as the README has it.
    const asShown = (output: string) => output.replaceAll(`127.0.0.1:${receiverPort}`, '127.0.0.1:4000');
    const answered = steps.map((step, index) => ({ command: step.command.split('\n')[0], answer: parts(asShown(outputs[index]!)) }));
    const shown = steps.map((step) => ({ command: step.command.split('\n')[0], answer: parts(step.shown ?? '') }));
    expect(answered).toEqual(shown);

    expect(readFileSync(join(dir, 'folio.pdf')).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(readFileSync(join(dir, 'folio.xlsx')).subarray(0, 2).toString('latin1')).toBe('PK');

    // The receiver listened before the export was asked for: its one delivery went through at the
    // first attempt, and the service logged no failed attempt.
    const deliveries = await world.pool.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries');
    expect(deliveries.rows).toEqual([{ status: 'succeeded', attempts: 1 }]);
    const logged = world.logs.map((line) => JSON.parse(line) as { level: number; msg: string; job?: string });
    expect(logged.filter((line) => line.job === 'webhook-delivery' && line.level >= 40)).toEqual([]);

    // What the session wrote in a reader's checkout is what git ignores there (.gitignore).
    const written = readdirSync(dir).filter((name) => !lstatSync(join(dir, name)).isSymbolicLink() && name !== '.data');
    expect(written.sort()).toEqual(['folio.pdf', 'folio.xlsx']);
    const ignored = spawnSync('git', ['check-ignore', '--no-index', ...written], { cwd: root, encoding: 'utf8' });
    expect(ignored.stdout.split('\n').filter(Boolean).sort()).toEqual(written);
  });
});
