import type { TPgPool } from '@folio-vault/shared/connections';

/** Status of export records (the API reads them for GET …/exports/{id}). */
export interface TStoredResult {
  key: string;
  filename: string;
  size: number;
  sha256: string;
  pages: number;
  rows: number;
}

export class ExportRepository {
  constructor(private readonly pool: TPgPool) {}

  /** Marks the export running; answers its stored result when a previous delivery completed it. */
  async start(exportId: string): Promise<TStoredResult | undefined> {
    const done = await this.pool.query<{ object_key: string; filename: string; size: string; sha256: string; pages: number; rows: number }>(
      `SELECT object_key, filename, size::text AS size, sha256, pages, rows FROM exports WHERE id = $1 AND status = 'completed'`,
      [exportId],
    );
    const row = done.rows[0];
    if (row) return { key: row.object_key, filename: row.filename, size: Number(row.size), sha256: row.sha256, pages: row.pages, rows: row.rows };
    await this.pool.query(`UPDATE exports SET status = 'running', started_at = now(), progress = 5, error = NULL WHERE id = $1`, [exportId]);
    return undefined;
  }

  async progress(exportId: string, progress: number): Promise<void> {
    await this.pool.query(`UPDATE exports SET progress = $2 WHERE id = $1 AND status = 'running'`, [exportId, progress]);
  }

  async complete(exportId: string, result: TStoredResult): Promise<void> {
    await this.pool.query(
      `UPDATE exports SET status = 'completed', progress = 100, completed_at = now(), object_key = $2, filename = $3,
         size = $4, sha256 = $5, pages = $6, rows = $7, error = NULL
       WHERE id = $1`,
      [exportId, result.key, result.filename, result.size, result.sha256, result.pages, result.rows],
    );
  }

  /** Back to queued while a retry is pending, so the status does not claim progress. */
  async retrying(exportId: string, error: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'queued', progress = 0, error = $2 WHERE id = $1 AND status <> 'completed'`, [exportId, error]);
  }

  async fail(exportId: string, error: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status <> 'completed'`, [exportId, error]);
  }
}
