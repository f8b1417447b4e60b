-- Queuing an export in one round trip (packages/shared/src/exports/export-store.ts, queue()). The
-- count of a property's exports in flight and the insert must run under a per-property lock, or two
-- API processes could both count cap - 1 and both insert; a lock taken inside one statement comes
-- too late for that statement's own snapshot. In a function each statement takes a new snapshot
-- (READ COMMITTED), so the insert below sees every export committed before the lock was granted.
-- The transaction around the call is the statement's own: the lock is held until it commits.
-- Before, the API sent BEGIN, the lock, the insert and COMMIT: four round trips an export.
CREATE FUNCTION exports_queue(
  p_id uuid, p_property_id bigint, p_digest text, p_request jsonb, p_language text, p_format text, p_cap integer
) RETURNS TABLE (outcome text, export_id uuid, export_status text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('exports-in-flight:' || p_property_id::text, 0));
  -- Queued unless an identical export is in flight or the property is at its cap.
  INSERT INTO exports (id, property_id, request_digest, request, language, format, status)
  SELECT p_id, p_property_id, p_digest, p_request, p_language, p_format, 'queued'
   WHERE NOT EXISTS (SELECT 1 FROM exports e WHERE e.property_id = p_property_id AND e.request_digest = p_digest AND e.status IN ('queued', 'running'))
     AND (SELECT count(*) FROM exports e WHERE e.property_id = p_property_id AND e.status IN ('queued', 'running')) < p_cap;
  IF FOUND THEN
    RETURN QUERY SELECT 'queued'::text, p_id, 'queued'::text;
    RETURN;
  END IF;
  -- Nothing inserted: an identical export in flight (joined), or the cap (full).
  RETURN QUERY SELECT 'joined'::text, e.id, e.status
    FROM exports e WHERE e.property_id = p_property_id AND e.request_digest = p_digest AND e.status IN ('queued', 'running');
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'full'::text, NULL::uuid, NULL::text;
  END IF;
END
$$;
