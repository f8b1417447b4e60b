/**
 * Where the CPU time of node processes went: reads .cpuprofile files (node --cpu-prof) and prints,
 * per file and over all of them, the sampled time and the top packages, source files and functions
 * by self time (ms and % of the sampled time). "(idle)" is time the process waited (its event loop
 * had nothing to do); "(program)" and "(garbage collector)" are V8's own. A package is the
 * node_modules package of the function's file, "node:" for node's own modules, "app:<folder>" for
 * the repository's apps/ and packages/ (e.g. app:worker, app:shared).
 *
 *   npx tsx bench/support/profile-summary.ts <file-or-dir>... [--top N] [--per-file] [--per-kind] [--exclude-idle] [--units N] [--kinds a.ts,b.ts]
 *
 * Directories are read for *.cpuprofile files (not recursively). Each process is labelled with its
 * kind: the first file of --kinds (default main.ts,main.js,render-child.ts,render-child.js) whose
 * top-level code it ran, "(other)", or "(thread)" for a thread without repository code (tsx's
 * module-loader thread). --per-kind prints the
 * summary of each kind; --units N (e.g. the folios or requests the profiled run did) adds the busy
 * time per unit, per kind and in all.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

interface TCallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface TProfileNode {
  id: number;
  callFrame: TCallFrame;
  children?: number[];
}

interface TCpuProfile {
  nodes: TProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time (µs) by package, file and function, and the profile's span. */
interface TSummary {
  name: string;
  kind: string;
  wallUs: number;
  sampledUs: number;
  idleUs: number;
  byPackage: Map<string, number>;
  byFile: Map<string, number>;
  byFunction: Map<string, number>;
}

const ROOT = process.cwd();
const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

function packageOf(url: string, functionName: string): string {
  if (!url) return SPECIAL.has(functionName) ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:';
  const path = url.replace(/^file:\/\//, '');
  const at = path.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const parts = path.slice(at + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const local = relative(ROOT, path).split('/');
  if (local[0] === 'apps' || local[0] === 'packages') return `app:${local[1]}`;
  return local[0] ?? path;
}

function fileOf(url: string, functionName: string): string {
  if (!url) return SPECIAL.has(functionName) ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const path = url.replace(/^file:\/\//, '');
  const at = path.lastIndexOf('/node_modules/');
  return at >= 0 ? path.slice(at + '/node_modules/'.length) : relative(ROOT, path);
}

function add<K>(map: Map<K, number>, key: K, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

/**
 * The process's kind: the first of `entries` (file names, --kinds) whose top-level code the profile
 * ran; "(other)" when none was, "(thread)" for a thread that ran no repository code (e.g. a
 * module-loader thread).
 */
function kindOf(profile: TCpuProfile, entries: string[]): string {
  const ours = profile.nodes.filter((node) => /^file:/.test(node.callFrame.url) && !node.callFrame.url.includes('/node_modules/'));
  const topLevel = new Set(ours.filter((node) => node.callFrame.functionName === '').map((node) => basename(node.callFrame.url)));
  const repository = ours.length > 0;
  return entries.find((entry) => topLevel.has(entry)) ?? (repository ? '(other)' : '(thread)');
}

function summarise(file: string, entries: string[]): TSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as TCpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // A sample's time is the delta to the next sample (the last sample gets none).
  for (let i = 0; i < profile.samples.length; i += 1) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    add(selfUs, profile.samples[i]!, delta);
  }
  const summary: TSummary = {
    name: basename(file),
    kind: kindOf(profile, entries),
    wallUs: profile.endTime - profile.startTime,
    sampledUs: 0,
    idleUs: 0,
    byPackage: new Map(),
    byFile: new Map(),
    byFunction: new Map(),
  };
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)!.callFrame;
    summary.sampledUs += us;
    if (frame.functionName === '(idle)') summary.idleUs += us;
    const where = fileOf(frame.url, frame.functionName);
    add(summary.byPackage, packageOf(frame.url, frame.functionName), us);
    add(summary.byFile, where, us);
    add(summary.byFunction, `${frame.functionName || '(anonymous)'} ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`, us);
  }
  return summary;
}

function merge(name: string, summaries: TSummary[]): TSummary {
  const total: TSummary = { name, kind: name, wallUs: 0, sampledUs: 0, idleUs: 0, byPackage: new Map(), byFile: new Map(), byFunction: new Map() };
  for (const s of summaries) {
    total.wallUs += s.wallUs;
    total.sampledUs += s.sampledUs;
    total.idleUs += s.idleUs;
    for (const key of ['byPackage', 'byFile', 'byFunction'] as const) for (const [k, v] of s[key]) add(total[key], k, v);
  }
  return total;
}

function print(summary: TSummary, top: number, excludeIdle: boolean): void {
  const busyUs = summary.sampledUs - summary.idleUs;
  const base = excludeIdle ? busyUs : summary.sampledUs;
  console.log(
    `\n== ${summary.name}: wall ${(summary.wallUs / 1000).toFixed(0)} ms, sampled ${(summary.sampledUs / 1000).toFixed(0)} ms, ` +
      `busy (not idle) ${(busyUs / 1000).toFixed(0)} ms; % of ${excludeIdle ? 'busy' : 'sampled'} time`,
  );
  for (const [title, map] of [['packages', summary.byPackage], ['files', summary.byFile], ['functions', summary.byFunction]] as const) {
    console.log(`  -- top ${title} by self time`);
    const rows = [...map].filter(([key]) => !(excludeIdle && key.startsWith('(idle)'))).sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [key, us] of rows) console.log(`  ${(us / 1000).toFixed(0).padStart(9)} ms ${((100 * us) / Math.max(base, 1)).toFixed(1).padStart(5)} %  ${key}`);
  }
}

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const inputs = args.filter((arg, i) => !arg.startsWith('--') && !['--top', '--units', '--kinds'].includes(args[i - 1] ?? ''));
if (inputs.length === 0) {
  console.error('usage: npx tsx bench/support/profile-summary.ts <file-or-dir>... [--top N] [--per-file] [--per-kind] [--exclude-idle] [--units N] [--kinds a.ts,b.ts]');
  process.exit(2);
}
const files = inputs.flatMap((input) =>
  statSync(input).isDirectory() ? readdirSync(input).filter((f) => f.endsWith('.cpuprofile')).sort().map((f) => join(input, f)) : [input],
);
const kindsAt = args.indexOf('--kinds');
const entries = (kindsAt >= 0 ? args[kindsAt + 1]! : 'main.ts,main.js,render-child.ts,render-child.js').split(',');
const summaries = files.map((file) => summarise(file, entries));
const unitsAt = args.indexOf('--units');
const units = unitsAt >= 0 ? Number(args[unitsAt + 1]) : undefined;
const busyMs = (s: TSummary) => (s.sampledUs - s.idleUs) / 1000;
console.log('processes (file kind: wall / sampled / busy ms):');
for (const s of summaries) console.log(`  ${s.name} ${s.kind}: ${(s.wallUs / 1000).toFixed(0)} / ${(s.sampledUs / 1000).toFixed(0)} / ${busyMs(s).toFixed(0)}`);
const kinds = [...new Set(summaries.map((s) => s.kind))].map((kind) => merge(kind, summaries.filter((s) => s.kind === kind)));
const allBusy = kinds.reduce((sum, k) => sum + busyMs(k), 0);
console.log(`\nby kind (busy ms, % of all busy${units ? `, ms per unit of ${units}` : ''}):`);
for (const k of kinds.sort((a, b) => busyMs(b) - busyMs(a))) {
  const count = summaries.filter((s) => s.kind === k.name).length;
  const perUnit = units ? `  ${(busyMs(k) / units).toFixed(2).padStart(8)} ms/unit` : '';
  console.log(`  ${k.name.padEnd(20)} ${String(count).padStart(3)} process(es) ${busyMs(k).toFixed(0).padStart(9)} ms ${((100 * busyMs(k)) / Math.max(allBusy, 1)).toFixed(1).padStart(5)} %${perUnit}`);
}
if (units) console.log(`  ${'all'.padEnd(20)} ${String(summaries.length).padStart(3)} process(es) ${allBusy.toFixed(0).padStart(9)} ms 100.0 %  ${(allBusy / units).toFixed(2).padStart(8)} ms/unit`);
if (flag('--per-file')) for (const s of summaries) print(s, top, flag('--exclude-idle'));
if (flag('--per-kind')) for (const k of kinds) print(k, top, flag('--exclude-idle'));
print(merge(`all ${summaries.length} profiles`, summaries), top, flag('--exclude-idle'));
