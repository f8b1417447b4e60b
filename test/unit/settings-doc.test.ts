import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  configSettings,
  renderTables,
  SETTINGS_PAGE,
  settingRows,
  spliceTables,
  TABLE_END,
  TABLE_START,
  type TSettingsInput,
} from '../../scripts/settings-table.js';

// docs/settings.md's tables are rendered from the config schema (scripts/settings-table.ts): a
// setting added without its documentation, or one removed, fails here until `npm run docs:settings`.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('docs/settings.md', () => {
  it('every setting of packages/shared/src/config.ts has a description, a reader and what it accepts', () => {
    expect(settingRows(configSettings()).problems).toEqual([]);
  });

  it('shows no default as [object Object]', () => {
    expect(readFileSync(join(ROOT, SETTINGS_PAGE), 'utf8')).not.toContain('[object Object]');
  });

  it('holds the tables rendered from packages/shared/src/config.ts', () => {
    const page = readFileSync(join(ROOT, SETTINGS_PAGE), 'utf8');
    const rendered = spliceTables(page, renderTables(settingRows(configSettings()).rows));
    expect(page, `${SETTINGS_PAGE} differs from the config schema: run npm run docs:settings`).toBe(rendered);
  });
});

describe('the settings tables', () => {
  const input = (shape: z.ZodRawShape, overrides: Partial<TSettingsInput> = {}): TSettingsInput => ({
    schema: z.object(shape),
    namesByRole: { api: Object.keys(shape), worker: Object.keys(shape) },
    everyRoleKeeps: new Set(Object.keys(shape)),
    requirements: new Map(),
    generated: new Set(),
    ...overrides,
  });

  it('render the default, the range with its unit, the values, the requirement and the meaning of each setting, by reader', () => {
    const { rows, problems } = settingRows(
      input(
        {
          MODE: z.enum(['on', 'off']).default('on').meta({ readBy: 'both', description: 'A switch.' }),
          WAIT_MS: z.coerce.number().int().min(1).max(500).default(250).meta({ readBy: 'api', description: 'A wait | a pipe.' }),
          LIST: z.string().transform((text) => text.split(',')).default(['a', 'b']).meta({ readBy: 'worker', accepts: 'a list', description: 'Items.' }),
          SECRET: z.string().optional().meta({ readBy: 'worker', accepts: 'text', description: 'A key.' }),
          ENDPOINT: z.string().optional().meta({ readBy: 'both', accepts: 'a URL', description: 'Where.' }),
        },
        {
          generated: new Set(['SECRET']),
          requirements: new Map([
            ['SECRET', new Map([['worker', 'is required']])],
            ['ENDPOINT', new Map([['worker', 'is required when MODE=on']])],
          ]),
        },
      ),
    );
    expect(problems).toEqual([]);
    expect(renderTables(rows)).toBe(
      [
        '### Every process',
        '',
        '| setting | default | accepts | required | meaning |',
        '|---|---|---|---|---|',
        '| `MODE` | `on` | `on`, `off` |  | A switch. |',
        '| `ENDPOINT` |  | a URL | required when `MODE=on` (worker) | Where. |',
        '',
        '### The API',
        '',
        '| setting | default | accepts | required | meaning |',
        '|---|---|---|---|---|',
        '| `WAIT_MS` | `250` | 1–500 ms |  | A wait \\| a pipe. |',
        '',
        '### Workers',
        '',
        '| setting | default | accepts | required | meaning |',
        '|---|---|---|---|---|',
        '| `LIST` | `a,b` | a list |  | Items. |',
        '| `SECRET` | generated outside production | text | required | A key. |',
      ].join('\n'),
    );
  });

  it('name each setting whose documentation is missing or disagrees with the config', () => {
    const { rows, problems } = settingRows(
      input(
        {
          BARE: z.string().optional(),
          NO_ACCEPTS: z.string().optional().meta({ readBy: 'api', description: 'Text.' }),
          WORKER_KEY: z.string().optional().meta({ readBy: 'worker', accepts: 'text', description: 'A key.' }),
          API_ONLY: z.string().optional().meta({ readBy: 'api', accepts: 'text', description: 'Kept by neither.' }),
        },
        {
          namesByRole: { api: ['BARE', 'NO_ACCEPTS', 'WORKER_KEY'], worker: ['BARE', 'NO_ACCEPTS', 'WORKER_KEY', 'API_ONLY'] },
          requirements: new Map([['WORKER_KEY', new Map([['api', 'is required']])]]),
        },
      ),
    );
    expect(problems).toEqual([
      'BARE: its .meta() in packages/shared/src/config.ts has no description, no readBy, no accepts (its schema is not a number range or a list of values)',
      'NO_ACCEPTS: its .meta() in packages/shared/src/config.ts has no accepts (its schema is not a number range or a list of values)',
      "WORKER_KEY: the api cannot start without it, but readBy is 'worker'",
      'API_ONLY: readBy says the api reads it, but NAMES_BY_ROLE.api does not keep it',
    ]);
    expect(rows.map((row) => row.name)).toEqual(['WORKER_KEY', 'API_ONLY']);
  });

  it('name a key that a role keeps although readBy says another role reads it, outside the settings every role keeps', () => {
    const { problems } = settingRows(
      input(
        {
          SHARED_PORT: z.string().optional().meta({ readBy: 'api', accepts: 'text', description: 'Kept by both, used by the API.' }),
          WORKER_KEY: z.string().optional().meta({ readBy: 'worker', accepts: 'text', description: 'A worker key the API keeps too.' }),
          API_KEY: z.string().optional().meta({ readBy: 'both', accepts: 'text', description: 'Said to be read by both, kept by the API.' }),
        },
        {
          namesByRole: { api: ['SHARED_PORT', 'WORKER_KEY', 'API_KEY'], worker: ['SHARED_PORT', 'WORKER_KEY'] },
          everyRoleKeeps: new Set(['SHARED_PORT']),
        },
      ),
    );
    expect(problems).toEqual([
      "WORKER_KEY: NAMES_BY_ROLE.api keeps it, but readBy is 'worker'",
      'API_KEY: readBy says the worker reads it, but NAMES_BY_ROLE.worker does not keep it',
    ]);
  });

  it('render a default that is an object as JSON, a list comma-separated', () => {
    const { rows } = settingRows(
      input({
        LABELS: z.string().optional().transform(() => ({ kekTest: ['k-1'], fingerprint: 'f-1' })).meta({ readBy: 'worker', accepts: 'JSON', description: 'Labels.' }),
        SCHEDULE: z.string().optional().transform(() => [5, 60]).meta({ readBy: 'worker', accepts: 'a list', description: 'Delays.' }),
      }),
    );
    expect(rows.map((row) => row.defaultValue)).toEqual(['`{"kekTest":["k-1"],"fingerprint":"f-1"}`', '`5,60`']);
  });

  it('replace only the text between the markers, and refuse a page without them', () => {
    const page = `# Settings\n\nIntro.\n\n${TABLE_START}\n\nold table\n\n${TABLE_END}\n\nAfter.\n`;
    expect(spliceTables(page, 'new table')).toBe(`# Settings\n\nIntro.\n\n${TABLE_START}\n\nnew table\n\n${TABLE_END}\n\nAfter.\n`);
    expect(() => spliceTables('# Settings\n', 'new table')).toThrow(/docs\/settings\.md has lost its markers/);
  });
});
