// The schematrons as SaxonJS runs them: SEF files compiled from the vendored XSLT by xslt3, gzipped
// in sef/, and sef/manifest.json naming, for each, the SHA-256 of the XSLT it was compiled from and
// of the SEF itself. Compiling one takes seconds, so the tests load the committed SEF instead; the
// manifest is how they know the SEF still belongs to the XSLT beside it (checkSefFiles, run by a
// unit test), and `npm run einvoice:compile -- --check` recompiles to show the SEF is what xslt3
// makes of it.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ARTEFACTS, SCHEMATRONS, SEF_DIR, type TSchematronName } from './validators.js';

export interface TSefEntry {
  /** The XSLT, relative to artefacts/. */
  xslt: string;
  xsltSha256: string;
  /** The gzipped SEF, relative to sef/. */
  sef: string;
  /** SHA-256 of the SEF's JSON text (not of its gzip, which depends on the zlib that wrote it). */
  sefSha256: string;
}

export interface TSefManifest {
  /** The compiler and version the SEF files come from. */
  compiler: string;
  stylesheets: Record<TSchematronName, TSefEntry>;
}

const MANIFEST = join(SEF_DIR, 'manifest.json');
const require = createRequire(import.meta.url);

export function sefFileOf(which: TSchematronName): string {
  return join(SEF_DIR, `${which}.sef.json.gz`);
}

export function readManifest(): TSefManifest {
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as TSefManifest;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Where checkSefFiles looks: the vendored artefacts and the SEF folder (another copy in a test). */
export interface TSefRoots {
  artefacts: string;
  sefDir: string;
}

/**
 * What no longer matches: an XSLT changed since its SEF was compiled, a SEF that is not the one the
 * manifest names, a schematron with no entry. Empty when every SEF belongs to its XSLT.
 */
export function checkSefFiles(roots: TSefRoots = { artefacts: ARTEFACTS, sefDir: SEF_DIR }): string[] {
  const manifest = JSON.parse(readFileSync(join(roots.sefDir, 'manifest.json'), 'utf8')) as TSefManifest;
  const problems: string[] = [];
  for (const which of Object.keys(SCHEMATRONS) as TSchematronName[]) {
    const entry = manifest.stylesheets[which];
    if (!entry) {
      problems.push(`${which}: no entry in sef/manifest.json`);
      continue;
    }
    if (entry.xslt !== SCHEMATRONS[which]) problems.push(`${which}: compiled from ${entry.xslt}, not ${SCHEMATRONS[which]}`);
    if (sha256(readFileSync(join(roots.artefacts, SCHEMATRONS[which]))) !== entry.xsltSha256) problems.push(`${which}: ${SCHEMATRONS[which]} changed since its SEF was compiled`);
    if (sha256(gunzipSync(readFileSync(join(roots.sefDir, entry.sef)))) !== entry.sefSha256) problems.push(`${which}: ${entry.sef} is not the SEF the manifest names`);
  }
  return problems;
}

/** xslt3's version, from its package. */
export function compilerName(): string {
  const { version } = JSON.parse(readFileSync(require.resolve('xslt3/package.json'), 'utf8')) as { version: string };
  return `xslt3 ${version}`;
}

/** Compiles one schematron's XSLT to a relocatable SEF (its JSON text), in a child process. */
export async function compileSchematron(which: TSchematronName): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'einvoice-sef-'));
  try {
    const out = join(dir, 'out.sef.json');
    const xslt3 = join(dirname(require.resolve('xslt3/package.json')), 'xslt3.js');
    await promisify(execFile)(process.execPath, [xslt3, `-xsl:${join(ARTEFACTS, SCHEMATRONS[which])}`, `-export:${out}`, '-nogo', '-relocate:on'], { maxBuffer: 16 * 1024 * 1024 });
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes a compiled SEF (gzipped) and its manifest entry. */
export function writeSef(which: TSchematronName, sef: string, manifest: TSefManifest): TSefManifest {
  writeFileSync(sefFileOf(which), gzipSync(sef, { level: 9 }));
  const entry: TSefEntry = {
    xslt: SCHEMATRONS[which],
    xsltSha256: sha256(readFileSync(join(ARTEFACTS, SCHEMATRONS[which]))),
    sef: `${which}.sef.json.gz`,
    sefSha256: sha256(sef),
  };
  return { compiler: compilerName(), stylesheets: { ...manifest.stylesheets, [which]: entry } };
}

export function writeManifest(manifest: TSefManifest): void {
  const ordered = Object.fromEntries((Object.keys(SCHEMATRONS) as TSchematronName[]).filter((w) => manifest.stylesheets[w]).map((w) => [w, manifest.stylesheets[w]]));
  writeFileSync(MANIFEST, `${JSON.stringify({ compiler: manifest.compiler, stylesheets: ordered }, null, 2)}\n`);
}

/**
 * A SEF's JSON without what changes from one compilation to the next (its build time and its
 * checksum), so two compilations of the same XSLT by the same xslt3 compare equal.
 */
export function comparableSef(sef: string): string {
  return sef.replace(/"buildDateTime":"[^"]*",/, '').replace(/,"Σ":"[0-9a-f]+"}$/, '}');
}

/** The committed SEF's JSON text. */
export function committedSef(which: TSchematronName): string {
  return gunzipSync(readFileSync(sefFileOf(which))).toString('utf8');
}
