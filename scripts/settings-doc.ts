import { readFileSync, writeFileSync } from 'node:fs';
import { parseCommandLine } from './cli-support.js';

// `npm run docs:settings`: writes the settings tables of docs/settings.md from the config schema
// (packages/shared/src/config.ts). Exit 1, changing nothing, when a setting lacks its documentation.
parseCommandLine('docs:settings', `
usage: npm run docs:settings

Writes the settings tables of docs/settings.md from the settings' schema (packages/shared/src/config.ts).
Exit code 0 = written or up to date, 1 = a setting lacks its documentation (nothing is changed).`, { options: {} });
// What the work needs loads once the command line is read (cli-support.ts).
const { configSettings, renderTables, settingRows, SETTINGS_PAGE, spliceTables } = await import('./settings-table.js');
const { rows, problems } = settingRows(configSettings());
if (problems.length > 0) {
  for (const problem of problems) console.error(`docs:settings: ${problem}`);
  process.exit(1);
}
const page = readFileSync(SETTINGS_PAGE, 'utf8');
const written = spliceTables(page, renderTables(rows));
if (written === page) {
  console.log(`docs:settings: ${SETTINGS_PAGE} is up to date (${rows.length} settings)`);
} else {
  writeFileSync(SETTINGS_PAGE, written);
  console.log(`docs:settings: ${SETTINGS_PAGE} written (${rows.length} settings)`);
}
