import pg from 'pg';

/** A pool that counts the statements it is asked to run (`statements()`), for tests that check how many a call makes. */
export function countingPool(url: string, max = 2): { pool: pg.Pool; statements(): number } {
  const pool = new pg.Pool({ connectionString: url, max });
  let count = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    count += 1;
    return query(...args);
  }) as typeof pool.query;
  return { pool, statements: () => count };
}
