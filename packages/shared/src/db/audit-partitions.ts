// The audit trail's monthly partitions (migration 020, docs/production.md#the-audit-trails-monthly-partitions):
// audit.vault_events_YYYY_MM holds the events of one calendar month (UTC). `npm run db:partitions`
// makes the current month's and the next ones' ahead of time, as the schema's owner (the API's
// and the workers' roles may create nothing). Made twice, a month is made once.
//
// A row written while its month had no partition went to the default partition; such rows are
// moved into the month's partition as it is made, in the same transaction (a partition cannot be
// made over rows the default partition holds for its range). Moving them deletes them from the
// default partition, which the append-only trigger refuses: that one partition's trigger is off for
// the move alone, inside the transaction, under a lock that keeps every other writer out.

import pg from 'pg';

/** The events' table and the name of one month's partition. */
export const AUDIT_EVENTS_TABLE = 'audit.vault_events';
export const partitionName = (month: TMonth) => `vault_events_${month.year}_${String(month.month).padStart(2, '0')}`;

export interface TMonth {
  year: number;
  /** 1-12 */
  month: number;
}

/** The month of `date` (UTC) and the `count` after it. */
export function monthsFrom(date: Date, count: number): TMonth[] {
  return Array.from({ length: count + 1 }, (_, offset) => {
    const at = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1));
    return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1 };
  });
}

/** A month's bounds as timestamptz literals: its first instant, and the next month's. */
function boundsOf(month: TMonth): [string, string] {
  const from = new Date(Date.UTC(month.year, month.month - 1, 1));
  const to = new Date(Date.UTC(month.year, month.month, 1));
  return [from.toISOString(), to.toISOString()];
}

export interface TPartitionOutcome {
  partition: string;
  /** `created`, or `exists` when it was there already. */
  outcome: 'created' | 'exists';
  /** Rows the default partition held for this month, now in it. */
  moved: number;
}

/** Each month's partition, made when missing, one transaction each (as the schema's owner). */
export async function ensureAuditPartitions(url: string, months: TMonth[]): Promise<TPartitionOutcome[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const outcomes: TPartitionOutcome[] = [];
    for (const month of months) outcomes.push(await ensureMonth(client, month));
    return outcomes;
  } finally {
    await client.end();
  }
}

async function ensureMonth(client: pg.Client, month: TMonth): Promise<TPartitionOutcome> {
  const partition = partitionName(month);
  const qualified = `audit.${pg.escapeIdentifier(partition)}`;
  const [from, to] = boundsOf(month);
  await client.query('BEGIN');
  try {
    // Inserts wait (briefly) while a month is made: the default partition's rows must not change meanwhile.
    await client.query("SET LOCAL lock_timeout = '10s'");
    await client.query(`LOCK TABLE ${AUDIT_EVENTS_TABLE} IN SHARE ROW EXCLUSIVE MODE`);
    const exists = await client.query(
      `SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE i.inhparent = $1::regclass AND n.nspname = 'audit' AND c.relname = $2`,
      [AUDIT_EVENTS_TABLE, partition],
    );
    if (exists.rowCount) {
      await client.query('COMMIT');
      return { partition, outcome: 'exists', moved: 0 };
    }
    const range = 'occurred_at >= $1::timestamptz AND occurred_at < $2::timestamptz';
    const stray = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit.vault_events_default WHERE ${range}`, [from, to]);
    const moved = stray.rows[0]!.n;
    if (moved === 0) {
      await client.query(`CREATE TABLE ${qualified} PARTITION OF ${AUDIT_EVENTS_TABLE} FOR VALUES FROM ('${from}') TO ('${to}')`);
    } else {
      await client.query(`CREATE TABLE ${qualified} (LIKE ${AUDIT_EVENTS_TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
      await client.query(`INSERT INTO ${qualified} SELECT * FROM audit.vault_events_default WHERE ${range}`, [from, to]);
      await client.query('ALTER TABLE audit.vault_events_default DISABLE TRIGGER vault_events_append_only');
      await client.query(`DELETE FROM audit.vault_events_default WHERE ${range}`, [from, to]);
      await client.query('ALTER TABLE audit.vault_events_default ENABLE TRIGGER vault_events_append_only');
      // Attaching gives it the parent's indexes and the append-only trigger.
      await client.query(`ALTER TABLE ${AUDIT_EVENTS_TABLE} ATTACH PARTITION ${qualified} FOR VALUES FROM ('${from}') TO ('${to}')`);
    }
    await client.query('COMMIT');
    return { partition, outcome: 'created', moved };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
