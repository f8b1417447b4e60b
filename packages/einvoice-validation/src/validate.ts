// Runs the official e-invoice validators in this process: the XSDs with libxml2 (libxml2-wasm), the
// schematrons with SaxonJS from their SEF files (compiled once from the vendored XSLT by
// npm run einvoice:compile and committed; sef.ts checks they still match). Each validator is loaded
// on its first use and kept for the life of the process, so a test file pays the load once.
//
// A schematron's verdict is its SVRL report: a `failed-assert` (or a `successful-report`, which the
// Factur-X schematron uses for elements its profile does not allow) whose flag is `fatal` or absent
// is a failure; any other flag (`warning`, `information`) is a warning, reported apart.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { XmlBufferInputProvider, XmlDocument, XmlParseError, XmlValidateError, XsdValidator, xmlRegisterInputProvider } from 'libxml2-wasm';
import SaxonJS from 'saxon-js';
import { sefFileOf } from './sef.js';
import {
  ARTEFACTS,
  CII_VALIDATORS,
  FRENCH_CII_VALIDATORS,
  SCHEMAS,
  SCHEMATRONS,
  UBL_VALIDATORS,
  type TSchemaName,
  type TSchematronName,
  type TValidatorName,
} from './validators.js';

/** One failed rule: its id (the schematron's, or null for an XSD error), flag, where, and what. */
export interface TFinding {
  /** The assert's id: "BR-CO-15", "BR-FR-10_BT-30", or the Factur-X schematron's own "FX-SCH-A-000121". */
  id: string | null;
  /** The business rule the finding names: the id, or the "[BR-…]" its text starts with (Factur-X's ids are its own). */
  rule: string | null;
  /** "fatal", "warning", "information", or null (no flag: an error). */
  flag: string | null;
  /** An XPath into the document (namespace tests left out), or "line N" for an XSD error. */
  location: string;
  text: string;
}

export interface TValidation {
  validator: TValidatorName;
  /** Fatal or unflagged asserts, XSD errors, a document that does not parse. */
  failures: TFinding[];
  warnings: TFinding[];
}

const SVRL = 'http://purl.oclc.org/dsdl/svrl';

/** Validates `xml` with one validator. Never throws for a bad document: its faults are the failures. */
export function validate(xml: string, which: TValidatorName): TValidation {
  if (which in SCHEMAS) return validateSchema(xml, which as TSchemaName);
  return validateSchematron(xml, which as TSchematronName);
}

/** Every validator that applies to `xml` (a CII or UBL invoice or credit note), by its root and seller country. */
export function validatorsFor(xml: string): readonly TValidatorName[] {
  const kind = documentKind(xml);
  if (kind.syntax === 'UBL') return UBL_VALIDATORS;
  return kind.sellerCountry === 'FR' ? FRENCH_CII_VALIDATORS : CII_VALIDATORS;
}

/** Runs every validator of validatorsFor(xml). */
export function validateAll(xml: string): TValidation[] {
  return validatorsFor(xml).map((which) => validate(xml, which));
}

const CII_ROOT = '{urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100}CrossIndustryInvoice';
const UBL_ROOTS = ['{urn:oasis:names:specification:ubl:schema:xsd:Invoice-2}Invoice', '{urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2}CreditNote'];

/** CII or UBL by the root element, and the seller's country (BT-40) of a CII document. */
export function documentKind(xml: string): { syntax: 'CII' | 'UBL'; sellerCountry: string | null } {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (error) {
    throw new Error(`not well-formed XML: ${(error as Error).message.trim()}`);
  }
  try {
    const root = doc.root;
    const name = `{${root.namespaceUri}}${root.name}`;
    if (UBL_ROOTS.includes(name)) return { syntax: 'UBL', sellerCountry: null };
    if (name !== CII_ROOT) throw new Error(`neither a CII CrossIndustryInvoice nor a UBL Invoice or CreditNote (root ${name})`);
    const country = doc.get('/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:PostalTradeAddress/ram:CountryID', {
      rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
      ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
    });
    return { syntax: 'CII', sellerCountry: country?.content.trim() || null };
  } finally {
    doc.dispose();
  }
}

// --- XSD --------------------------------------------------------------------------------------

const schemaValidators = new Map<TSchemaName, XsdValidator>();
let schemaFilesRegistered = false;

/**
 * libxml2 reads an XSD's imports through an input provider. The vendored schema folders are served
 * from memory under their file: URLs (the percent-encoded form libxml2 asks for: a folder name has
 * spaces), so nothing outside them is read.
 */
function registerSchemaFiles(): void {
  if (schemaFilesRegistered) return;
  const buffers: Record<string, Uint8Array> = {};
  for (const file of Object.values(SCHEMAS)) {
    const folder = dirname(join(ARTEFACTS, file));
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.xsd'))) {
      buffers[pathToFileURL(join(folder, name)).href] = readFileSync(join(folder, name));
    }
  }
  xmlRegisterInputProvider(new XmlBufferInputProvider(buffers));
  schemaFilesRegistered = true;
}

function schemaValidator(which: TSchemaName): XsdValidator {
  let validator = schemaValidators.get(which);
  if (!validator) {
    registerSchemaFiles();
    const path = join(ARTEFACTS, SCHEMAS[which]);
    const schema = XmlDocument.fromBuffer(readFileSync(path), { url: pathToFileURL(path).href });
    try {
      validator = XsdValidator.fromDoc(schema);
    } finally {
      schema.dispose();
    }
    schemaValidators.set(which, validator);
  }
  return validator;
}

function validateSchema(xml: string, which: TSchemaName): TValidation {
  const validator = schemaValidator(which);
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (error) {
    return { validator: which, failures: [notWellFormed(error)], warnings: [] };
  }
  try {
    validator.validate(doc);
    return { validator: which, failures: [], warnings: [] };
  } catch (error) {
    if (!(error instanceof XmlValidateError)) throw error;
    const failures = error.details.map((d) => ({ id: null, rule: null, flag: null, location: `line ${d.line}`, text: d.message.trim() }));
    return { validator: which, failures, warnings: [] };
  } finally {
    doc.dispose();
  }
}

function notWellFormed(error: unknown): TFinding {
  const text = error instanceof XmlParseError ? error.message.trim() : String(error);
  return { id: null, rule: null, flag: null, location: 'line 1', text: `not well-formed XML: ${text}` };
}

// --- Schematron ---------------------------------------------------------------------------------

const stylesheets = new Map<TSchematronName, unknown>();

function stylesheet(which: TSchematronName): unknown {
  let sef = stylesheets.get(which);
  if (!sef) {
    sef = JSON.parse(gunzipSync(readFileSync(sefFileOf(which))).toString('utf8'));
    stylesheets.set(which, sef);
  }
  return sef;
}

/** Each failed assert or fired report of an SVRL document, as plain values. */
const FINDINGS_XPATH = `array { for $f in //(svrl:failed-assert | svrl:successful-report) return map {
  'id': string($f/@id), 'flag': string($f/@flag), 'location': string($f/@location), 'text': normalize-space(string($f/svrl:text)) } }`;

function validateSchematron(xml: string, which: TSchematronName): TValidation {
  try {
    XmlDocument.fromString(xml).dispose();
  } catch (error) {
    return { validator: which, failures: [notWellFormed(error)], warnings: [] };
  }
  const result = SaxonJS.transform(
    {
      stylesheetInternal: stylesheet(which),
      // The Factur-X schematron reads its code lists with document('FACTUR-X_EN16931_codedb.xml'),
      // beside the XSLT the SEF was compiled from.
      stylesheetBaseURI: pathToFileURL(join(ARTEFACTS, SCHEMATRONS[which])).href,
      sourceText: xml,
      destination: 'document',
    },
    'sync',
  );
  const raw = SaxonJS.XPath.evaluate(FINDINGS_XPATH, result.principalResult, { namespaceContext: { svrl: SVRL } }) as Array<Record<'id' | 'flag' | 'location' | 'text', string>>;
  const failures: TFinding[] = [];
  const warnings: TFinding[] = [];
  for (const f of raw) {
    const finding: TFinding = {
      id: f.id || null,
      rule: f.id && /^BR-/.test(f.id) ? f.id : (/^\[([A-Za-z0-9-]+)\]/.exec(f.text)?.[1] ?? (f.id || null)),
      flag: f.flag || null,
      location: readableLocation(f.location),
      text: f.text,
    };
    if (finding.flag === null || finding.flag === 'fatal' || finding.flag === 'error') failures.push(finding);
    else warnings.push(finding);
  }
  return { validator: which, failures, warnings };
}

/** "/*:Invoice[namespace-uri()='…'][1]/…" → "/Invoice[1]/…". */
function readableLocation(location: string): string {
  return location.replace(/\[namespace-uri\(\)='[^']*'\]/g, '').replace(/\*:/g, '');
}
