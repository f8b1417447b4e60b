// Every statement on the tables `reservations`, `reservation_rooms` and `users`
// (docs/ledger.md#import) but one: the listing and the exports read them beside each transaction
// through the join in transaction-view.ts (transactionJoinsSql).

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import type { TReservation, TUser } from './stay-schemas.js';
import type { TReservationStatus } from './enums.js';

type TDb = TPgPool | PoolClient;

export interface TStayRow {
  id: string;
  identifier: string | null;
  guest_name: string;
  status: TReservationStatus;
  checkin_date: string;
  checkout_date: string;
  adults: number | null;
  children: number | null;
  rooms: Array<{ id: string; roomName: string; roomTypeName: string | null; archived: boolean }>;
}

/** Upserts reservations; the rooms a reservation lists (also none) replace the rooms it had; without a list they stay. */
export async function upsertReservations(client: PoolClient, propertyId: string, rows: TReservation[]): Promise<void> {
  await client.query(
    `INSERT INTO reservations (property_id, id, identifier, guest_name, status, checkin_date, checkout_date, adults, children)
     SELECT $1, r.id, r.identifier, r."guestName", r.status, r."checkinDate", r."checkoutDate", r.adults, r.children
       FROM jsonb_to_recordset($2::jsonb) AS r(id bigint, identifier text, "guestName" text, status text, "checkinDate" date,
         "checkoutDate" date, adults int, children int)
     ON CONFLICT (property_id, id) DO UPDATE SET identifier = EXCLUDED.identifier, guest_name = EXCLUDED.guest_name,
       status = EXCLUDED.status, checkin_date = EXCLUDED.checkin_date, checkout_date = EXCLUDED.checkout_date,
       adults = EXCLUDED.adults, children = EXCLUDED.children, updated_at = now()`,
    [propertyId, JSON.stringify(rows.map(({ rooms: _rooms, ...reservation }) => reservation))],
  );
  const listed = rows.filter((reservation) => reservation.rooms !== undefined);
  const rooms = listed.flatMap((reservation) => (reservation.rooms ?? []).map((room, position) => ({ ...room, reservationId: reservation.id, position })));
  await client.query('DELETE FROM reservation_rooms WHERE property_id = $1 AND reservation_id = ANY($2::bigint[])', [propertyId, listed.map((r) => r.id)]);
  if (rooms.length === 0) return;
  await client.query(
    `INSERT INTO reservation_rooms (property_id, id, reservation_id, room_name, room_type_name, archived, position)
     SELECT $1, m.id, m."reservationId", m."roomName", m."roomTypeName", m.archived, m.position
       FROM jsonb_to_recordset($2::jsonb) AS m(id bigint, "reservationId" bigint, "roomName" text, "roomTypeName" text, archived boolean, position int)
     ON CONFLICT (property_id, id) DO UPDATE SET reservation_id = EXCLUDED.reservation_id, room_name = EXCLUDED.room_name,
       room_type_name = EXCLUDED.room_type_name, archived = EXCLUDED.archived, position = EXCLUDED.position, updated_at = now()`,
    [propertyId, JSON.stringify(rooms)],
  );
}

export async function upsertUsers(client: PoolClient, propertyId: string, rows: TUser[]): Promise<void> {
  await client.query(
    `INSERT INTO users (property_id, id, first_name, last_name, email)
     SELECT $1, u.id, u."firstName", u."lastName", u.email
       FROM jsonb_to_recordset($2::jsonb) AS u(id text, "firstName" text, "lastName" text, email text)
     ON CONFLICT (property_id, id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
       email = EXCLUDED.email, updated_at = now()`,
    [propertyId, JSON.stringify(rows)],
  );
}

/** The stay behind a RESERVATION source with its rooms in the order imported; undefined when not imported. */
export async function findStay(db: TDb, propertyId: string, reservationId: string): Promise<TStayRow | undefined> {
  const result = await db.query<TStayRow>(
    `SELECT r.id, r.identifier, r.guest_name, r.status, to_char(r.checkin_date, 'YYYY-MM-DD') AS checkin_date,
            to_char(r.checkout_date, 'YYYY-MM-DD') AS checkout_date, r.adults, r.children,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('id', m.id::text, 'roomName', m.room_name, 'roomTypeName', m.room_type_name,
                                                          'archived', m.archived) ORDER BY m.position)
                        FROM reservation_rooms m WHERE m.property_id = r.property_id AND m.reservation_id = r.id), '[]'::jsonb) AS rooms
       FROM reservations r WHERE r.property_id = $1 AND r.id = $2`,
    [propertyId, reservationId],
  );
  return result.rows[0];
}
