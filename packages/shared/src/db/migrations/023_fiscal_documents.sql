-- Fiscal documents (docs/fiscal-documents.md): invoices and credit notes, numbered gap-free per
-- property and series, frozen when issued, rendered by the workers.

-- The last number given in each series of a property. An issue locks its row (SELECT … FOR UPDATE)
-- in the transaction that stores the document, so numbers are taken one at a time whatever the
-- number of API processes, and a transaction that rolls back gives its number back.
CREATE TABLE fiscal_series (
  property_id bigint NOT NULL,
  series text NOT NULL,
  last_number bigint NOT NULL DEFAULT 0 CHECK (last_number >= 0),
  PRIMARY KEY (property_id, series)
);

CREATE TABLE fiscal_documents (
  id uuid PRIMARY KEY,
  property_id bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('INVOICE', 'CREDIT_NOTE')),
  series text NOT NULL,
  sequence bigint NOT NULL CHECK (sequence >= 1),
  number text NOT NULL,
  source_kind text NOT NULL,
  source_id bigint NOT NULL,
  recipient_type text NOT NULL,
  recipient_id bigint NOT NULL,
  -- A credit note's invoice (BG-3); an invoice has at most one.
  credits uuid REFERENCES fiscal_documents (id),
  -- The frozen document (packages/shared/src/fiscal/document-model.ts): what every file is rendered from.
  document jsonb NOT NULL,
  formats text[] NOT NULL,
  status text NOT NULL CHECK (status IN ('issuing', 'issued', 'failed')),
  error text,
  -- Per format: the stored file's key, size and sha256.
  files jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Raised each time the sweep renders a failed document again (the render job's id names it).
  render_round int NOT NULL DEFAULT 0,
  idempotency_key text,
  request_digest text,
  created_at timestamptz NOT NULL DEFAULT now(),
  issued_at timestamptz,
  failed_at timestamptz,
  UNIQUE (property_id, series, sequence),
  CHECK ((kind = 'CREDIT_NOTE') = (credits IS NOT NULL))
);
CREATE UNIQUE INDEX fiscal_documents_one_credit_note ON fiscal_documents (credits) WHERE credits IS NOT NULL;
CREATE UNIQUE INDEX fiscal_documents_by_idempotency_key ON fiscal_documents (property_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX fiscal_documents_by_source ON fiscal_documents (property_id, source_kind, source_id, created_at DESC);
-- The render sweep reads what is not issued yet.
CREATE INDEX fiscal_documents_to_render ON fiscal_documents (created_at) WHERE status <> 'issued';

-- An issued document never changes: what it says, its number and its parties stay as frozen;
-- only its rendering (status, error, files, rounds and their times) moves on.
CREATE FUNCTION fiscal_documents_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.property_id, NEW.kind, NEW.series, NEW.sequence, NEW.number, NEW.source_kind, NEW.source_id,
      NEW.recipient_type, NEW.recipient_id, NEW.credits, NEW.document, NEW.formats, NEW.idempotency_key, NEW.request_digest, NEW.created_at)
     IS DISTINCT FROM
     (OLD.id, OLD.property_id, OLD.kind, OLD.series, OLD.sequence, OLD.number, OLD.source_kind, OLD.source_id,
      OLD.recipient_type, OLD.recipient_id, OLD.credits, OLD.document, OLD.formats, OLD.idempotency_key, OLD.request_digest, OLD.created_at) THEN
    RAISE EXCEPTION 'fiscal document % is frozen: only its rendering may change', OLD.id USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER fiscal_documents_frozen BEFORE UPDATE ON fiscal_documents FOR EACH ROW EXECUTE FUNCTION fiscal_documents_frozen();
CREATE TRIGGER fiscal_documents_kept BEFORE DELETE ON fiscal_documents FOR EACH ROW EXECUTE FUNCTION fiscal_documents_frozen();

-- The transactions a document holds (its lines' and the payments counted as prepaid). A
-- transaction is on at most one live invoice; crediting the invoice ends its links (live false),
-- and the transactions can be invoiced again.
CREATE TABLE fiscal_document_transactions (
  property_id bigint NOT NULL,
  transaction_id bigint NOT NULL,
  document_id uuid NOT NULL REFERENCES fiscal_documents (id),
  live boolean NOT NULL DEFAULT true,
  PRIMARY KEY (document_id, transaction_id)
);
CREATE UNIQUE INDEX fiscal_document_transactions_live ON fiscal_document_transactions (property_id, transaction_id) WHERE live;

-- The API issues (series, documents, links) and credits (a document, links ended); the workers
-- read documents and record their rendering.
GRANT SELECT, INSERT, UPDATE ON fiscal_series TO folio_vault_api;
GRANT SELECT, INSERT ON fiscal_documents TO folio_vault_api;
GRANT SELECT, INSERT, UPDATE ON fiscal_document_transactions TO folio_vault_api;
GRANT SELECT, UPDATE ON fiscal_documents TO folio_vault_worker;
