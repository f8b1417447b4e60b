/**
 * The processes of the benchmarks' floor (bench/baselines/service-floor.ts): the least an intake API of this
 * service's shape can cost, with none of the service's own work.
 *
 *   node --import tsx bench/baselines/service-floor-child.ts intake <express | express-queue | express-batch> [--with-worker]
 *   node --import tsx bench/baselines/service-floor-child.ts worker
 *
 * - `intake express`: Express 5 with its JSON body parser, answering a fixed token-sized object.
 * - `intake express-queue`: the same, but each request adds one BullMQ job and answers its result,
 *   waited for through QueueEvents as the API waits (a map of waiters, one listener).
 * - `intake express-batch`: requests that arrive while a job is being added go together in the next
 *   job (at most 50 a job, two adds in flight); each gets its own item of the job's result. Not the
 *   service's design: what gathering requests into shared jobs would allow at most.
 * - `worker`: a BullMQ worker with the service's concurrency whose handler does nothing but answer
 *   one token-sized object per item; `--with-worker` runs it inside the intake process instead, as
 *   `npm start` runs the API and the worker in one process. With FLOOR_GATEWAY_URL set, the handler
 *   sends each item (a forward's body: path, headers, body) to that gateway instead, through an undici
 *   Pool trusting FLOOR_GATEWAY_CA, as the worker's gateway client does, and answers its status and
 *   body: the floor of a forward.
 * The intake answers POST on any path. Both print "ready" on standard output once they take work.
 * Settings from the environment: REDIS_URL, QUEUE_PREFIX, PORT, WORKER_CONCURRENCY, FLOOR_GATEWAY_URL,
 * FLOOR_GATEWAY_CA.
 */
import { Queue, QueueEvents, Worker } from 'bullmq';
import express from 'express';
import { Pool } from 'undici';
import { createRedis } from '@folio-vault/shared/connections';

const QUEUE = 'service-floor';
const TOKEN = { id: '0190f3c4-8f2a-7b7e-9f00-000000000000', card_brand: 'VISA', last4: '1111', expiration: { month: '08', year: '2030' }, test_mode: true };
const BATCH_MAX = 50;
const ADDS_IN_FLIGHT = 2;

const [role, mode, withWorker] = process.argv.slice(2);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.QUEUE_PREFIX ?? 'floor';

type THandler = (body: unknown) => Promise<unknown>;

/** Waits for jobs' results through one QueueEvents listener, as apps/api/src/jobs/job-waiter.ts does. */
async function queueWaiter(): Promise<{ add: (jobId: string, data: object) => { added: Promise<unknown>; done: Promise<unknown> } }> {
  const queue = new Queue(QUEUE, { connection: createRedis(redisUrl, 'producer'), prefix });
  const events = new QueueEvents(QUEUE, { connection: createRedis(redisUrl, 'events'), prefix });
  await events.waitUntilReady();
  const waiting = new Map<string, (value: unknown) => void>();
  events.on('completed', ({ jobId, returnvalue }) => {
    const resolve = waiting.get(jobId);
    waiting.delete(jobId);
    resolve?.(typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue);
  });
  return {
    add(jobId, data) {
      const done = new Promise((resolve) => waiting.set(jobId, resolve));
      return { added: queue.add(QUEUE, data as never, { jobId, removeOnComplete: { age: 60 } }), done };
    },
  };
}

async function handlerOf(name: string | undefined): Promise<THandler> {
  if (name === 'express') return async () => TOKEN;
  let n = 0;
  const jobId = () => `${process.pid}-${(n += 1)}`;
  const waiter = await queueWaiter();
  if (name === 'express-queue') {
    return async (body) => {
      const { added, done } = waiter.add(jobId(), { items: [body] });
      await added;
      return ((await done) as unknown[])[0];
    };
  }
  if (name !== 'express-batch') throw new Error(`unknown intake mode ${name}`);
  let gathered: Array<{ body: unknown; resolve: (value: unknown) => void }> = [];
  let inFlight = 0;
  const flush = (): void => {
    if (gathered.length === 0 || inFlight >= ADDS_IN_FLIGHT) return;
    const batch = gathered.slice(0, BATCH_MAX);
    gathered = gathered.slice(BATCH_MAX);
    inFlight += 1;
    const { added, done } = waiter.add(jobId(), { items: batch.map((item) => item.body) });
    void done.then((items) => batch.forEach((item, i) => item.resolve((items as unknown[])[i])));
    // The next batch goes once this one's add is done (or another add is free).
    void added.then(() => {
      inFlight -= 1;
      flush();
    });
  };
  return (body) =>
    new Promise((resolve) => {
      gathered.push({ body, resolve });
      flush();
    });
}

/** The worker's handler: a fixed token per item, or each item sent to the gateway (a forward's floor). */
function itemHandler(): (item: unknown) => Promise<unknown> {
  const origin = process.env.FLOOR_GATEWAY_URL;
  if (!origin) return async () => TOKEN;
  const gateway = new Pool(origin, { connect: { ca: process.env.FLOOR_GATEWAY_CA, rejectUnauthorized: true } });
  return async (item) => {
    const { path, headers, body } = item as { path: string; headers?: Record<string, string>; body?: string };
    const res = await gateway.request({ method: 'POST', path, headers: headers ?? {}, ...(body === undefined ? {} : { body }) });
    return { status: res.statusCode, body: await res.body.text() };
  };
}

async function startWorker(): Promise<void> {
  const handle = itemHandler();
  const worker = new Worker(QUEUE, async (job) => Promise.all((job.data as { items: unknown[] }).items.map(handle)), {
    connection: createRedis(redisUrl, 'worker'),
    prefix,
    concurrency: Number(process.env.WORKER_CONCURRENCY ?? 16),
  });
  await worker.waitUntilReady();
}

if (role === 'worker') {
  await startWorker();
  console.log('ready');
} else if (role === 'intake') {
  if (withWorker === '--with-worker') await startWorker();
  const handler = await handlerOf(mode);
  const app = express();
  app.use(express.json({ limit: '16kb' }));
  app.post('/{*path}', async (req, res) => {
    res.status(200).json(await handler(req.body));
  });
  app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
} else {
  console.error('usage: service-floor-child.ts intake <express | express-queue | express-batch> [--with-worker] | worker');
  process.exit(2);
}
