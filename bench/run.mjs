// `npm run bench` (after `npm run build`): measures the built package and prints a table of ratios
// against their goals; `npm run bench -- --json` prints only the figures, as one JSON object.
//
// Options: --json; --runs <n> (rounds of the compile benchmarks, default 3; the cheaper benchmarks
// run proportionally more); --only <key,...> (run only the benchmarks that produce these keys).
// Progress goes to stderr (text mode only); a benchmark that fails leaves null figures and its error.
import { parseArgs } from 'node:util'
import { generateProject } from './generate.mjs'
import { removeDir, snapshotPackage } from './lib.mjs'
import { bridges, compileInto, mcp, peakRss, pluginOverhead, scale } from './measures.mjs'

const GOALS = {
  plugin_overhead: { goal: '<= 1.3', pass: (v) => v <= 1.3 },
  scale_vs_esbuild: { goal: '<= 1.5', pass: (v) => v <= 1.5 },
  scale_growth: { goal: '<= 12', pass: (v) => v <= 12 },
  incremental_vs_cold: { goal: '<= 0.1', pass: (v) => v <= 0.1 },
  incremental_files_written: { goal: 'written = expected', pass: (v) => v.written === v.expected },
  mcp_cold_start_vs_node: { goal: '<= 1.5', pass: (v) => v <= 1.5 },
  mcp_call_p50_ms: { goal: 'report' },
  mcp_call_p99_ms: { goal: 'report' },
  inline_vs_process_call: { goal: '<= 0.05', pass: (v) => v <= 0.05 },
  peak_rss_mb_1000_tools: { goal: 'report' },
}

const { values: flags } = parseArgs({
  options: { json: { type: 'boolean', default: false }, runs: { type: 'string', default: '3' }, only: { type: 'string' } },
  strict: true,
})
const runs = Number(flags.runs)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a positive integer, not "${flags.runs}"`)
const only = flags.only ? new Set(flags.only.split(',').map((k) => k.trim())) : undefined
for (const key of only ?? []) if (!(key in GOALS)) throw new Error(`--only: unknown key "${key}"; the keys are ${Object.keys(GOALS).join(', ')}`)

const log = flags.json ? () => {} : (line) => process.stderr.write(`${line}\n`)
const started = Date.now()

snapshotPackage()
const small = generateProject({ tools: 100, agents: 100 })
const large = generateProject({ tools: 1000, agents: 100 })

/** The benchmarks, each with the keys it produces; the runtime ones share one compiled 100-tool tree. */
const benchmarks = [
  { keys: ['plugin_overhead'], run: () => pluginOverhead({ rounds: runs * 2 + 1, log }) },
  {
    keys: ['scale_vs_esbuild', 'scale_growth', 'incremental_vs_cold', 'incremental_files_written'],
    run: () => scale({ small, large, rounds: runs, log }),
  },
  { keys: ['peak_rss_mb_1000_tools'], run: () => peakRss({ large }) },
  {
    keys: ['mcp_cold_start_vs_node', 'mcp_call_p50_ms', 'mcp_call_p99_ms'],
    runtime: true,
    run: (target) => mcp({ small, target, rounds: runs * 3 + 1, calls: 1000, log }),
  },
  { keys: ['inline_vs_process_call'], runtime: true, run: (target) => bridges({ small, target, rounds: runs * 3 + 1, log }) },
]

const values = Object.fromEntries(Object.keys(GOALS).map((key) => [key, null]))
const details = []
const errors = []
let runtimeTarget
try {
  for (const benchmark of benchmarks) {
    if (only && !benchmark.keys.some((key) => only.has(key))) continue
    log(`bench: ${benchmark.keys.join(', ')}`)
    try {
      if (benchmark.runtime && !runtimeTarget) runtimeTarget = await compileInto(small, 'runtime-100')
      const measured = await benchmark.run(runtimeTarget)
      Object.assign(values, measured.values)
      details.push(...measured.details)
    } catch (error) {
      errors.push(`${benchmark.keys.join(', ')}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      log(`  failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
} finally {
  if (runtimeTarget) await removeDir(runtimeTarget)
}

const round = (v) => (typeof v === 'number' ? Number(v.toPrecision(3)) : v)

if (flags.json) {
  process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, round(v)])))}\n`)
  if (errors.length) process.stderr.write(`bench errors:\n${errors.join('\n\n')}\n`)
} else {
  const rows = Object.entries(GOALS)
    .filter(([key]) => !only || only.has(key))
    .map(([key, { goal, pass }]) => {
      const value = values[key]
      const shown = value === null ? 'failed' : typeof value === 'object' ? `${value.written} (expected ${value.expected})` : String(round(value))
      const verdict = value === null ? 'FAIL' : pass ? (pass(value) ? 'pass' : 'FAIL') : '-'
      return [key, shown, goal, verdict]
    })
  const header = ['key', 'value', 'goal', 'pass']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`
  console.log([line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'))
  console.log(`\n${details.join('\n')}`)
  const os = await import('node:os')
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ')
  console.log(`\nnode ${process.version}, ${os.cpus().length} cpus (load average ${load} at the end), --runs ${runs}, ${((Date.now() - started) / 1000).toFixed(0)} s`)
  if (errors.length) console.log(`\nerrors:\n${errors.join('\n\n')}`)
}
process.exitCode = errors.length ? 1 : 0
