import { z } from 'zod';
import { ConfigError, loadConfig, NAMES_BY_ROLE, SHARED_NAMES, ZConfig } from '@folio-vault/shared/config';
import type { TSettingReader } from '@folio-vault/shared/config-fields';
import { DEV_KEY_NAMES } from '@folio-vault/shared/dev-keys';

// The settings table of docs/settings.md, rendered from the config schema: each setting's `.meta()`
// (readBy, description, accepts) and what the schema itself says (its default, its number range or
// values, which settings a production start refuses to go without). scripts/settings-doc.ts writes
// it; test/unit/settings-doc.test.ts fails when the page and the schema differ.

export const SETTINGS_PAGE = 'docs/settings.md';
export const TABLE_START = '<!-- The tables below are generated from packages/shared/src/config.ts by `npm run docs:settings`: edit the descriptions there. -->';
export const TABLE_END = '<!-- End of the generated tables. -->';

type TRole = 'api' | 'worker';

export interface TSettingsInput {
  schema: z.ZodObject;
  /** The settings each role keeps in its config (config.ts NAMES_BY_ROLE). */
  namesByRole: Record<TRole, ReadonlyArray<string>>;
  /**
   * The settings every role keeps whichever uses them (config.ts SHARED_NAMES): their readBy may
   * name fewer roles than keep them. Any other setting is read by exactly the roles that keep it.
   */
  everyRoleKeeps: ReadonlySet<string>;
  /** Setting → role → the start-up problem a process of that role reports without it ("is required", …). */
  requirements: ReadonlyMap<string, ReadonlyMap<TRole, string>>;
  /** The settings generated outside production when unset (dev-keys.ts). */
  generated: ReadonlySet<string>;
}

export interface TSettingRow {
  name: string;
  readBy: TSettingReader;
  defaultValue: string;
  accepts: string;
  required: string;
  description: string;
}

const READERS: Record<TSettingReader, TRole[]> = { api: ['api'], worker: ['worker'], both: ['api', 'worker'] };
const SECTIONS: Array<[TSettingReader, string]> = [
  ['both', 'Every process'],
  ['api', 'The API'],
  ['worker', 'Workers'],
];
const UNITS: Array<[RegExp, string]> = [
  [/_MS$/, ' ms'],
  [/_SECONDS$/, ' s'],
  [/_DAYS$/, ' days'],
];

/** The schema under `.default()` and `.optional()`, where its range or values are. */
function innermost(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType };
  return (def.type === 'default' || def.type === 'optional') && def.innerType ? innermost(def.innerType) : schema;
}

/** What the schema accepts, when it says so itself: a number range (with the unit the name gives) or a list of values. */
function derivedAccepts(name: string, schema: z.core.$ZodType): string | undefined {
  const inner = innermost(schema);
  if (inner instanceof z.ZodNumber && Number.isFinite(inner.minValue) && Number.isFinite(inner.maxValue)) {
    const unit = UNITS.find(([suffix]) => suffix.test(name))?.[1] ?? '';
    return `${inner.minValue}–${inner.maxValue}${unit}`;
  }
  if (inner instanceof z.ZodEnum) return inner.options.map((option) => `\`${String(option)}\``).join(', ');
  return undefined;
}

/** The value a setting has when unset, written as it would be set. */
function defaultOf(name: string, schema: z.ZodType, generated: ReadonlySet<string>): string {
  const parsed = schema.safeParse(undefined);
  const value: unknown = parsed.success ? parsed.data : undefined;
  if (value === undefined) return generated.has(name) ? 'generated outside production' : '';
  // A list setting is written comma-separated; one whose value is JSON (PKCS11_KEY_LABELS), as JSON.
  const listed = Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null);
  const text = listed ? value.join(',') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  return `\`${text}\``;
}

/** A word that may be a setting's name in a start-up problem, with the value it is compared with: STORAGE_DRIVER=minio. */
const UPPER_WORD = /\b([A-Z][A-Z0-9_]*)(=[\w.-]+)?/g;

/** "is required" → "required"; a rule that names other settings is kept whole, their names as code. */
function requiredOf(readBy: TSettingReader, byRole: ReadonlyMap<TRole, string> | undefined, names: ReadonlySet<string>): string {
  if (!byRole || byRole.size === 0) return '';
  const asCode = (problem: string) => problem.replace(UPPER_WORD, (word, name: string) => (names.has(name) ? `\`${word}\`` : word));
  const rules = [...new Set(byRole.values())].map((problem) => asCode(problem.replace(/^is /, '')));
  const roles = [...byRole.keys()];
  const everyReader = READERS[readBy].every((role) => roles.includes(role));
  return `${rules.join('; ')}${everyReader ? '' : ` (${roles.join(', ')})`}`;
}

/** One row per setting, in schema order, and what is missing or inconsistent in their documentation. */
export function settingRows(input: TSettingsInput): { rows: TSettingRow[]; problems: string[] } {
  const rows: TSettingRow[] = [];
  const problems: string[] = [];
  const names = new Set(Object.keys(input.schema.shape));
  for (const [name, schema] of Object.entries(input.schema.shape) as Array<[string, z.ZodType]>) {
    const meta = schema.meta() ?? {};
    const accepts = meta.accepts ?? derivedAccepts(name, schema);
    const missing = [
      ...(meta.description ? [] : ['description']),
      ...(meta.readBy ? [] : ['readBy']),
      ...(accepts ? [] : ['accepts (its schema is not a number range or a list of values)']),
    ];
    if (missing.length > 0) problems.push(`${name}: its .meta() in packages/shared/src/config.ts has no ${missing.join(', no ')}`);
    if (!meta.readBy || !meta.description || !accepts) continue;
    for (const role of READERS[meta.readBy]) {
      if (!input.namesByRole[role].includes(name)) problems.push(`${name}: readBy says the ${role} reads it, but NAMES_BY_ROLE.${role} does not keep it`);
    }
    // Outside the settings every role keeps, a role keeps only what readBy says it reads: a worker key in NAMES_BY_ROLE.api shows here.
    for (const role of ['api', 'worker'] as const) {
      if (input.namesByRole[role].includes(name) && !READERS[meta.readBy].includes(role) && !input.everyRoleKeeps.has(name)) {
        problems.push(`${name}: NAMES_BY_ROLE.${role} keeps it, but readBy is '${meta.readBy}'`);
      }
    }
    const byRole = input.requirements.get(name);
    for (const role of byRole?.keys() ?? []) {
      if (!READERS[meta.readBy].includes(role)) problems.push(`${name}: the ${role} cannot start without it, but readBy is '${meta.readBy}'`);
    }
    rows.push({
      name,
      readBy: meta.readBy,
      defaultValue: defaultOf(name, schema, input.generated),
      accepts,
      required: requiredOf(meta.readBy, byRole, names),
      description: meta.description,
    });
  }
  return { rows, problems };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One table per reader: the settings every process reads, then the API's, then the workers'. */
export function renderTables(rows: ReadonlyArray<TSettingRow>): string {
  return SECTIONS.filter(([readBy]) => rows.some((row) => row.readBy === readBy))
    .map(([readBy, title]) => {
      const lines = rows
        .filter((row) => row.readBy === readBy)
        .map((row) => `| \`${row.name}\` | ${cell(row.defaultValue)} | ${cell(row.accepts)} | ${cell(row.required)} | ${cell(row.description)} |`);
      return [`### ${title}`, '', '| setting | default | accepts | required | meaning |', '|---|---|---|---|---|', ...lines].join('\n');
    })
    .join('\n\n');
}

/** `page` with the text between its markers replaced by `tables`. */
export function spliceTables(page: string, tables: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${SETTINGS_PAGE} has lost its markers: put back the lines\n${TABLE_START}\n${TABLE_END}`);
  return `${page.slice(0, start + TABLE_START.length)}\n\n${tables}\n\n${page.slice(end)}`;
}

/**
 * What a production start of each role reports missing: with nothing set, and with each other
 * value of a list setting (STORAGE_DRIVER=minio wants its endpoint and credentials).
 */
function productionRequirements(): Map<string, Map<TRole, string>> {
  const shape = ZConfig.shape as Record<string, z.ZodType>;
  const variants: Array<Record<string, string>> = [{}];
  for (const [name, schema] of Object.entries(shape)) {
    const inner = innermost(schema);
    if (name === 'NODE_ENV' || !(inner instanceof z.ZodEnum)) continue;
    for (const option of inner.options) variants.push({ [name]: String(option) });
  }
  const requirements = new Map<string, Map<TRole, string>>();
  for (const role of ['api', 'worker'] as const) {
    for (const variant of variants) {
      let problems: string[] = [];
      try {
        loadConfig({ NODE_ENV: 'production', ...variant }, role);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems = error.problems;
      }
      for (const line of problems) {
        const [, name, problem] = /^([A-Z0-9_]+): (.+)$/.exec(line) ?? [];
        if (!name || !problem || !(name in shape)) continue;
        const byRole = requirements.get(name) ?? new Map<TRole, string>();
        if (!byRole.has(role)) byRole.set(role, problem);
        requirements.set(name, byRole);
      }
    }
  }
  return requirements;
}

/** The service's own settings, as the table documents them. */
export function configSettings(): TSettingsInput {
  return {
    schema: ZConfig,
    namesByRole: { api: NAMES_BY_ROLE.api, worker: NAMES_BY_ROLE.worker },
    everyRoleKeeps: new Set(SHARED_NAMES),
    requirements: productionRequirements(),
    generated: new Set(DEV_KEY_NAMES),
  };
}
