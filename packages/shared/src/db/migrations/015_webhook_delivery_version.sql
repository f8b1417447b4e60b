-- A delivery's version, raised by a manual retry. An attempt records its outcome against the
-- version it started from: when a retry came in meanwhile, the attempt's failure is recorded
-- (attempts, last status, last error) but does not end or reschedule the delivery.
ALTER TABLE webhook_deliveries ADD COLUMN version integer NOT NULL DEFAULT 0;
