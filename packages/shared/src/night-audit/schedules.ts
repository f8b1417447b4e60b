// The daily night audit of each property with a nightAuditTime (docs/night-audit.md): one BullMQ
// job scheduler per property, with a stable id and the property's time zone (so 03:00 stays 03:00
// local across DST changes), upserted or removed here and nowhere else.

import type { Queue } from 'bullmq';
import type { TPgPool } from '../connections.js';
import { listPropertySchedules } from '../properties/property-store.js';
import { nightAuditScheduledJob } from './night-audit-job.js';

/** A property's scheduler id: one scheduler per property, whoever upserts it. */
export const schedulerIdOf = (propertyId: string) => `night-audit-${propertyId}`;

export async function syncNightAuditSchedule(
  queue: Queue,
  property: { id: string; timezone: string; nightAuditTime?: string | null },
): Promise<void> {
  if (!property.nightAuditTime) {
    await queue.removeJobScheduler(schedulerIdOf(property.id));
    return;
  }
  const [hours, minutes] = property.nightAuditTime.split(':').map(Number);
  await queue.upsertJobScheduler(
    schedulerIdOf(property.id),
    { pattern: `${minutes} ${hours} * * *`, tz: property.timezone },
    { name: nightAuditScheduledJob.name, data: { version: 1, propertyId: property.id }, opts: nightAuditScheduledJob.options },
  );
}

/** At worker start: every property's scheduler, as the properties table says. */
export async function syncAllNightAuditSchedules(pool: TPgPool, queue: Queue): Promise<number> {
  const properties = await listPropertySchedules(pool);
  for (const property of properties) {
    await syncNightAuditSchedule(queue, { id: property.id, timezone: property.timezone, nightAuditTime: property.night_audit_time });
  }
  return properties.filter((p) => p.night_audit_time).length;
}
