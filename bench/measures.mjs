// The measurements of `npm run bench`. Each returns `{ values: { key: figure }, details: [lines] }`;
// every ratio is taken from contenders run side by side in the same process, in rotating order.
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { revisionMarker } from './generate.mjs'
import {
  distDir,
  importDist,
  importWriteOutputs,
  mcpHandshake,
  median,
  percentile,
  removeDir,
  rotate,
  runProcess,
  StdioPeer,
  tempDir,
  timed,
} from './lib.mjs'
import { repoRoot } from './generate.mjs'

const ms = (value) => `${value.toFixed(1)} ms`

/** Where the vendor builds of the bench's package and the projects' packages are kept (all in this repository's node_modules). */
const VENDOR_CACHE = join(repoRoot, 'node_modules', '.cache', 'oac', 'vendor')

/**
 * plugin_overhead: `vite build` of playground/ with the plugin (all harnesses, native tools) / without it,
 * each a fresh process (bench/vite-build.mjs) as when a person runs `vite build`. With the plugin the
 * agent tree goes to a folder kept across rounds, as in a project where it exists already (a third
 * contender writes it into an empty folder each time, for the record). The app imports `virtual:oac`,
 * so the build without the plugin serves the code the plugin produced for it from a stub.
 */
export async function pluginOverhead({ rounds, log }) {
  const script = join(repoRoot, 'bench', 'vite-build.mjs')
  const work = await tempDir('vite')
  const manifestFile = join(work, 'virtual-oac.js')
  const keptTarget = join(work, 'agents')
  const viteBuild = (...args) => runProcess(process.execPath, [script, ...args], { cwd: repoRoot })
  try {
    const samples = await rotate(
      {
        'with plugin': () => viteBuild('plugin', join(work, 'out-plugin'), keptTarget, manifestFile),
        'without plugin': () => viteBuild('stub', join(work, 'out-stub'), manifestFile),
        'with plugin, empty target': async (round) => {
          const target = join(work, `agents-${round + 1}`)
          await viteBuild('plugin', join(work, 'out-plugin-empty'), target, join(work, 'virtual-oac-empty.js'))
          await removeDir(target)
        },
      },
      { rounds, warmup: 1, log },
    )
    const withPlugin = median(samples['with plugin'])
    const without = median(samples['without plugin'])
    const emptyTarget = median(samples['with plugin, empty target'])
    return {
      values: { plugin_overhead: withPlugin / without },
      details: [
        `vite build of playground/ (a process each): ${ms(withPlugin)} with the plugin, ${ms(without)} without; ` +
          `${ms(emptyTarget)} with the plugin into an empty target (${(emptyTarget / without).toFixed(2)}x) (median of ${rounds})`,
      ],
    }
  } finally {
    await removeDir(work)
  }
}

/**
 * The floor's esbuild part: one esbuild build of the tool modules themselves, packages left out as the
 * bundle stage leaves them to the vendor files, with none of our entries, runtime, plugins or maps.
 */
async function bareEsbuild(project) {
  const esbuild = await import('esbuild')
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(project.tools.map((tool) => [tool.name, join(project.dir, tool.file)])),
    absWorkingDir: project.dir,
    outdir: join(project.dir, '.oac-bundle', 'scripts'),
    write: false,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent',
  })
  return result.outputFiles.length
}

/**
 * The floor's registry part: one evaluation of the registry, which is how any compile learns the
 * tools. A TypeScript registry has to be transformed to run, so the bare esbuild bundle of it (packages
 * left to node_modules) is part of it; the bundle is written into the project, so its imports resolve.
 */
async function bareRegistryEvaluation(project, round) {
  const esbuild = await import('esbuild')
  const file = join(project.dir, `.bench-registry-${process.pid}-${round}.mjs`)
  await esbuild.build({
    entryPoints: [join(project.dir, project.registry.split(':')[0])],
    absWorkingDir: project.dir,
    outfile: file,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    alias: { 'unplugin-oac': join(distDir, 'index.js') },
    logLevel: 'silent',
  })
  try {
    const namespace = await import(pathToFileURL(file).href)
    const registry = namespace[project.registry.split(':')[1] ?? 'default']
    if (registry?.tools?.length !== project.tools.length) throw new Error(`the bare registry evaluation found ${registry?.tools?.length} tools, expected ${project.tools.length}`)
  } finally {
    rmSync(file, { force: true })
  }
}

/** The floor's write part: the tree's generated files written with plain writeFileSync, no checks. */
function bareWrite(files, target) {
  const folders = new Set(files.map((file) => dirname(join(target, file.path))))
  for (const folder of folders) mkdirSync(folder, { recursive: true })
  for (const file of files) writeFileSync(join(target, file.path), file.content)
}

/** A cold compile into a new folder under `parent`, which the caller removes after the rounds: deleting
 * thousands of files is no part of a compile, and would slow whatever runs next on the same disk. */
async function coldCompile(compile, project, parent, round) {
  const target = join(parent, `cold-${project.tools.length}-${round}`)
  return compile({ registry: project.registry, root: project.dir, config: project.config, target })
}

/**
 * scale_vs_floor, scale_growth, incremental_vs_cold, incremental_files_written, files_changed_adding_a_tool
 * and tree_bytes_1000_tools, from the same rounds: each round runs a cold compile of 1,000 tools (a new
 * Compiler, empty target), a cold compile of 100 tools, the three parts of the floor each alone (the bare
 * esbuild build of the same tool modules, one evaluation of the registry, the tree's bytes written with
 * writeFileSync), and, on a Compiler kept alive since before the first round (watch mode), generate +
 * write after editing one tool's `run` body. After the rounds, that Compiler sees one tool added.
 */
export async function scale({ small, large, rounds, log }) {
  const api = await importDist('api.js')
  const writeOutputs = await importWriteOutputs()

  const watchTarget = await tempDir('watch')
  const compiler = new api.Compiler(large.dir)
  const options = { registry: large.registry, config: large.config }
  const writeAll = async (files, serverName) => {
    const report = await writeOutputs(files, { target: watchTarget, mode: 'write', force: false, owner: serverName })
    const errors = report.diagnostics.filter((d) => d.severity === 'error')
    if (errors.length) throw new Error(`the watch build's write failed: ${errors.map((d) => d.message).join('; ')}`)
    return report
  }
  let previous = await compiler.generate(options)
  await writeAll(previous.files, previous.plan.serverName)
  const treeFiles = previous.files.filter((file) => file.kind === 'owned')
  const treeBytes = treeFiles.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0)
  const bareWrites = await tempDir('bare-write')
  const coldTargets = await tempDir('cold')

  const edits = []
  const edited = new Map()
  // Round r edits the run body of a different tool (its revision marker goes from 0 to r + 10); earlier
  // edits stay until the end, so each rebuild sees exactly one changed file.
  const editTool = async (round) => {
    const tool = large.tools[((round + 1) * 37) % large.tools.length]
    const file = join(large.dir, tool.file)
    const source = await readFile(file, 'utf8')
    const before = JSON.stringify(revisionMarker(tool.name, 0))
    if (!source.includes(before)) throw new Error(`${file} does not hold ${before}; regenerate the bench projects`)
    edited.set(file, source)
    const marker = revisionMarker(tool.name, round + 10)
    await writeFile(file, source.replace(before, JSON.stringify(marker)))
    return { tool, marker }
  }

  let added
  try {
    const samples = await rotate(
      {
        'cold compile 1000': (round) => coldCompile(api.compile, large, coldTargets, round),
        // A user's first compile on a machine: no vendor build of an earlier process to take.
        'cold compile 1000, empty vendor cache': (round) => {
          rmSync(VENDOR_CACHE, { recursive: true, force: true })
          return coldCompile(api.compile, large, coldTargets, `${round}-empty-cache`)
        },
        'cold compile 100': (round) => coldCompile(api.compile, small, coldTargets, round),
        'floor: bare esbuild 1000': () => bareEsbuild(large),
        'floor: registry evaluation 1000': (round) => bareRegistryEvaluation(large, round),
        'floor: bare write of the tree': (round) => bareWrite(treeFiles, join(bareWrites, String(round))),
        'incremental 1000': async (round) => {
          // The edit is a plain file write, as a watcher would see it.
          const edit = await editTool(round)
          const { ms: generateMs, result: generated } = await timed(() => compiler.generate(options))
          const { ms: writeMs, result: report } = await timed(() => writeAll(generated.files, generated.plan.serverName))
          // Counted now, so the bench keeps no tree of an earlier round alive: a watch session holds one.
          edits.push({ ...countIncremental({ edit, generated, previous, report }), generateMs, writeMs })
          previous = generated
        },
      },
      // No warm-up round: the watch Compiler's first build above already ran every stage on the large registry.
      { rounds, warmup: 0, log },
    )
    added = await addTool({ compiler, options, large, previous, edited })
    const cold1000 = median(samples['cold compile 1000'])
    const coldEmptyCache = median(samples['cold compile 1000, empty vendor cache'])
    const cold100 = median(samples['cold compile 100'])
    const esbuildFloor = median(samples['floor: bare esbuild 1000'])
    const registryFloor = median(samples['floor: registry evaluation 1000'])
    const writeFloor = median(samples['floor: bare write of the tree'])
    const floor = esbuildFloor + registryFloor + writeFloor
    const incremental = median(samples['incremental 1000'])
    // The figure is the round that wrote the most beyond what it had to.
    const worst = edits.reduce((a, b) => (b.written.length - b.expected.length > a.written.length - a.expected.length ? b : a))
    return {
      values: {
        scale_vs_floor: cold1000 / floor,
        scale_vs_floor_empty_vendor_cache: coldEmptyCache / floor,
        scale_growth: cold1000 / cold100,
        incremental_vs_cold: incremental / cold1000,
        incremental_files_written: { written: worst.written.length, expected: worst.expected.length },
        files_changed_adding_a_tool: { written: added.changed.length, expected: added.expected.length },
        tree_bytes_1000_tools: treeBytes,
      },
      details: [
        `cold compile: ${ms(cold1000)} at 1,000 tools, ${ms(cold100)} at 100 tools, each a new Compiler into an empty folder, the vendor files from ` +
          `the cache of earlier processes (median of ${rounds}); ${ms(coldEmptyCache)} at 1,000 tools with that cache emptied first`,
        `floor of the 1,000-tool compile: ${ms(floor)} = bare esbuild build of the tool modules ${ms(esbuildFloor)} + one evaluation of the registry ` +
          `${ms(registryFloor)} + writing the tree's ${treeFiles.length} files (${(treeBytes / 1e6).toFixed(1)} MB) with writeFileSync ${ms(writeFloor)} (medians of ${rounds})`,
        `watch rebuild after editing one tool's run body: ${ms(incremental)} (median of ${rounds}; generate ` +
          `${ms(median(edits.map((e) => e.generateMs)))}, write ${ms(median(edits.map((e) => e.writeMs)))})`,
        ...edits.map(
          (c) =>
            `  edit of ${c.tool}: wrote ${c.written.length} (${c.written.join(', ')}), expected ${c.expected.length} (${c.expected.join(', ')}), ` +
            `content changed in ${c.changed.length}${c.removed.length ? `, removed ${c.removed.join(', ')}` : ''}`,
        ),
        `adding the tool ${added.name}: bytes changed in ${added.changed.length} files, expected ${added.expected.length} (its own files, and the three that list every tool)` +
          (added.changed.join() === added.expected.join() ? '' : `; changed: ${added.changed.join(', ')}; expected: ${added.expected.join(', ')}`),
      ],
    }
  } finally {
    await compiler.dispose()
    for (const [file, source] of edited) await writeFile(file, source)
    if (added) rmSync(added.file, { force: true })
    await removeDir(watchTarget)
    await removeDir(bareWrites)
    await removeDir(coldTargets)
  }
}

/**
 * The files that list every tool of the registry: the MCP server's list, pi's one extension, and
 * Codex's config (its server block names every tool it serves, `enabled_tools`). Agent files name
 * an agent's own tools only (opencode's and Kilo's deny every tool with a wildcard, then allow theirs).
 */
const ADDED_TOOL_LISTS = ['scripts/mcp_tools_server.cjs', '.pi/extensions/oac-tools.ts', '.codex/config.toml']

/**
 * Adds one tool to the large registry (a copy of a zod tool's module under a new name, listed in the
 * registry's `tools` and in no agent) and compiles again on the watch Compiler. Expected to change:
 * the files named after the new tool (its launcher, code and map, and its opencode, Kilo and omp
 * shims), and the three files that list every tool (ADDED_TOOL_LISTS); no agent file, since no agent has it.
 */
async function addTool({ compiler, options, large, previous, edited }) {
  const template = large.tools.find((tool) => tool.schemaKind === 'zod')
  const name = 'added_tool'
  const source = (await readFile(join(large.dir, template.file), 'utf8')).replace(JSON.stringify(template.name), JSON.stringify(name))
  const file = join(large.dir, 'agents', 'tools', `${name}.ts`)
  await writeFile(file, source.replace(/export const \w+ =/, 'export const addedTool ='))
  const registryFile = join(large.dir, large.registry.split(':')[0])
  const registry = await readFile(registryFile, 'utf8')
  if (!edited.has(registryFile)) edited.set(registryFile, registry)
  const at = registry.indexOf('\nexport const registry = defineRegistry({')
  const listed = registry.indexOf('  tools: [', at)
  if (at < 0 || listed < 0) throw new Error(`${registryFile}: no defineRegistry call with a tools list to add the tool to`)
  await writeFile(
    registryFile,
    `${registry.slice(0, at)}\nimport { addedTool } from './tools/${name}.ts'\n${registry.slice(at, listed)}  tools: [addedTool, ${registry.slice(listed + '  tools: ['.length)}`,
  )
  const generated = await compiler.generate(options)
  const before = new Map(previous.files.map((f) => [f.path, f.kind === 'owned' ? f.content : JSON.stringify(f.entries)]))
  const after = new Map(generated.files.map((f) => [f.path, f.kind === 'owned' ? f.content : JSON.stringify(f.entries)]))
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort()
  const ownFile = new RegExp(`(^|/)${name}(\\.|/|$)`)
  const expected = [...after.keys()].filter((path) => ownFile.test(path) || ADDED_TOOL_LISTS.includes(path)).sort()
  return { name, file, changed, expected }
}

/**
 * What one watch rebuild wrote against what it had to: the edited tool's code file (the one holding its
 * new revision marker) and that file's source map when its mappings moved, nothing else. `changed` is every file whose generated content differs.
 */
function countIncremental({ edit, generated, previous, report }) {
  const before = new Map(previous.files.filter((f) => f.kind === 'owned').map((f) => [f.path, f.content]))
  const owned = generated.files.filter((f) => f.kind === 'owned')
  const holders = owned.filter((f) => f.content.includes(edit.marker)).map((f) => f.path)
  const mapsChanged = holders.map((path) => `${path}.map`).filter((path) => owned.some((f) => f.path === path && f.content !== before.get(path)))
  return {
    tool: edit.tool.name,
    written: [...report.written].sort(),
    removed: [...report.removed].sort(),
    expected: [...holders, ...mapsChanged].sort(),
    changed: owned.filter((f) => before.get(f.path) !== f.content).map((f) => f.path).sort(),
  }
}

/** Compiles `project` into a fresh folder for the runtime benchmarks. */
export async function compileInto(project, label, extra = {}) {
  const { compile } = await importDist('api.js')
  const target = await tempDir(label)
  await compile({ registry: project.registry, root: project.dir, config: project.config, target, ...extra })
  return target
}

/** The command the generated `.mcp.json` gives the harness for our server, run from the target. */
async function mcpCommand(target, node) {
  const config = JSON.parse(await readFile(join(target, '.mcp.json'), 'utf8'))
  const servers = Object.entries(config.mcpServers ?? {})
  if (servers.length !== 1) throw new Error(`${join(target, '.mcp.json')}: expected one MCP server, found ${servers.length}`)
  const [, server] = servers[0]
  return { command: server.command === 'node' ? node : server.command, args: server.args ?? [] }
}

/** The vendor file of `name` (`zod@4.6.7/index.mjs`, say) in a generated scripts folder: the figures' floors load it alone. */
function vendorFile(target, folderPrefix, file) {
  const vendor = join(target, 'scripts', 'vendor')
  const folder = readdirSync(vendor).find((name) => name.startsWith(folderPrefix))
  if (!folder) throw new Error(`no ${folderPrefix}* folder in ${vendor}`)
  return join(vendor, folder, file)
}

// The floor: a bare node process that answers every JSON-RPC request line with an empty result.
const FLOOR_SERVER = `const rl = require('node:readline').createInterface({ input: process.stdin })
rl.on('line', (line) => { const m = JSON.parse(line); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }) + '\\n') })`

/**
 * mcp_cold_start_vs_node: spawn -> first tools/list answered, generated server (100 tools) / bare node.
 * The detail adds the floor any server on the official SDK has: the generated tree's vendor server
 * file (the SDK, zod and our runtime, compile cache on) serving no tools.
 * mcp_call_p50_ms, mcp_call_p99_ms: `calls` sequential warm tools/call round trips.
 */
export async function mcp({ small, target, rounds, calls, node, log }) {
  const server = await mcpCommand(target, node)
  const sdkAlone = `require('node:module').enableCompileCache?.(); require(${JSON.stringify(vendorFile(target, 'unplugin-oac@', 'mcp-server.cjs'))}).startMcpServer({ name: 'floor', version: '0', env: [], tools: [] })`
  const coldStart = async (command, args, expectTools) => {
    const peer = new StdioPeer(command, args, { cwd: target })
    try {
      const tools = await mcpHandshake(peer)
      if (tools.length !== expectTools) throw new Error(`tools/list answered ${tools.length} tools, expected ${expectTools}\n${peer.stderr}`)
    } finally {
      await peer.close()
    }
  }
  // Only the time to the answer counts: `close` runs outside the timed part.
  const timedStart = async (command, args, expectTools) => {
    const peer = new StdioPeer(command, args, { cwd: target })
    const { ms: startMs, result: tools } = await timed(() => mcpHandshake(peer))
    await peer.close()
    if (tools.length !== expectTools) throw new Error(`tools/list answered ${tools.length} tools, expected ${expectTools}\n${peer.stderr}`)
    return startMs
  }
  await coldStart(server.command, server.args, small.tools.length)
  await coldStart(node, ['-e', sdkAlone], 0)
  const starts = { server: [], floor: [], sdk: [] }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? ['sdk', 'floor', 'server'] : ['server', 'floor', 'sdk']
    for (const which of order) {
      const startMs =
        which === 'server'
          ? await timedStart(server.command, server.args, small.tools.length)
          : which === 'sdk'
            ? await timedStart(node, ['-e', sdkAlone], 0)
            : await timedStart(node, ['-e', FLOOR_SERVER], 0)
      starts[which].push(startMs)
      log(`  round ${round + 1}/${rounds} ${which}: ${ms(startMs)}`)
    }
  }
  const serverStart = median(starts.server)
  const floorStart = median(starts.floor)
  const sdkStart = median(starts.sdk)

  const peer = new StdioPeer(server.command, server.args, { cwd: target })
  const latencies = []
  try {
    await mcpHandshake(peer)
    const call = async (tool) => {
      const result = await peer.request('tools/call', { name: tool.name, arguments: tool.sample })
      if (result.isError) throw new Error(`tools/call ${tool.name} failed: ${JSON.stringify(result.content)}`)
    }
    // Warm: every tool's module loaded once before the timed calls.
    for (const tool of small.tools) await call(tool)
    for (let i = 0; i < calls; i++) {
      const { ms: callMs } = await timed(() => call(small.tools[i % small.tools.length]))
      latencies.push(callMs)
    }
  } finally {
    await peer.close()
  }
  return {
    values: {
      mcp_cold_start_vs_node: serverStart / floorStart,
      mcp_call_p50_ms: percentile(latencies, 50),
      mcp_call_p99_ms: percentile(latencies, 99),
    },
    details: [
      `MCP spawn -> tools/list under node ${await nodeVersion(node)}: ${ms(serverStart)} for the generated server (${small.tools.length} tools), ${ms(floorStart)} for bare node, ` +
        `${ms(sdkStart)} for its vendor server file (the SDK) serving no tools, ${(sdkStart / floorStart).toFixed(2)} x bare node (median of ${rounds})`,
      `MCP tools/call round trip over ${calls} warm calls: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))}`,
    ],
  }
}

// The floor of a script's start: a bare node process that reads stdin and prints it.
const FLOOR_SCRIPT = `let text = ''; process.stdin.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => process.stdout.write(JSON.stringify(JSON.parse(text)) + '\\n'))`

const nodeVersions = new Map()
/** `node --version` of the given executable. */
export async function nodeVersion(node) {
  if (!nodeVersions.has(node)) nodeVersions.set(node, (await runProcess(node, ['--version'], { cwd: repoRoot })).stdout.trim())
  return nodeVersions.get(node)
}

/**
 * script_start_vs_node: spawn -> output of a generated zod tool script given `--json` on stdin (the bash
 * route, and the process bridge of every native shim) / a bare node process that reads stdin and prints.
 * The first runs fill Node's compile cache (where the script turns it on), as any earlier call would.
 * The detail adds the floor of any zod tool: node loading the tree's zod vendor file (compile cache
 * on), reading stdin and parsing it with a zod schema.
 */
export async function scriptStart({ small, target, rounds, node, log }) {
  const tool = small.tools.find((t) => t.schemaKind === 'zod')
  const script = join(target, 'scripts', `${tool.name}.mjs`)
  const input = JSON.stringify(tool.sample)
  const zodAlone =
    `require('node:module').enableCompileCache?.(); import(${JSON.stringify(pathToFileURL(vendorFile(target, 'zod@', 'index.mjs')).href)}).then(({ z }) => {` +
    ` let text = ''; process.stdin.setEncoding('utf8').on('data', (d) => (text += d)).on('end', async () => process.stdout.write(JSON.stringify(await z.looseObject({}).parseAsync(JSON.parse(text))) + '\\n')) })`
  const samples = await rotate(
    {
      script: () => runProcess(node, [script, '--json'], { cwd: target, input }),
      'bare node': () => runProcess(node, ['-e', FLOOR_SCRIPT], { cwd: target, input }),
      'node and zod': () => runProcess(node, ['-e', zodAlone], { cwd: target, input }),
    },
    { rounds, warmup: 2, log },
  )
  const scriptMs = median(samples.script)
  const floorMs = median(samples['bare node'])
  const zodMs = median(samples['node and zod'])
  return {
    ratio: scriptMs / floorMs,
    detail:
      `script start under node ${await nodeVersion(node)}: node scripts/${tool.name}.mjs --json ${ms(scriptMs)}, bare node reading stdin ${ms(floorMs)}, ` +
      `node loading the zod vendor file and parsing stdin with it ${ms(zodMs)}, ${(zodMs / floorMs).toFixed(2)} x bare node (median of ${rounds})`,
  }
}

/**
 * inline_vs_process_call: one call through the inline bridge (the script module imported once, as a
 * shim caches it, then `invoke`) / through the process bridge (`node scripts/<tool>.mjs --json`).
 */
export async function bridges({ small, target, rounds, node, log }) {
  const tool = small.tools[0]
  const script = join(target, 'scripts', `${tool.name}.mjs`)
  const input = JSON.stringify(tool.sample)
  const options = () => ({ signal: new AbortController().signal, cwd: target, env: {}, progress: () => {} })
  const { ms: firstInlineMs, result: module } = await timed(async () => {
    const imported = await import(pathToFileURL(script).href)
    const result = await imported.invoke(tool.sample, options())
    if (!result.ok) throw new Error(`inline invoke of ${tool.name} failed: ${result.message}`)
    return imported
  })
  const inline = async () => {
    const result = await module.invoke(tool.sample, options())
    if (!result.ok) throw new Error(`inline invoke of ${tool.name} failed: ${result.message}`)
  }
  const viaProcess = () => runProcess(node, [script, '--json'], { cwd: target, input })
  const samples = await rotate({ inline, process: viaProcess }, { rounds, warmup: 1, log })
  const inlineMs = median(samples.inline)
  const processMs = median(samples.process)
  return {
    values: { inline_vs_process_call: inlineMs / processMs },
    details: [
      `one call of ${tool.name}: ${ms(inlineMs)} inline, ${ms(processMs)} through a process (median of ${rounds}); ` +
        `the first inline call, import included: ${ms(firstInlineMs)}`,
    ],
  }
}

/** peak_rss_mb_1000_tools: peak RSS of `node dist/cli.js compile` of the 1,000-tool registry, cold, in a child. */
export async function peakRss({ large }) {
  const target = await tempDir('rss')
  try {
    const { ms: cliMs, result } = await timed(() =>
      runProcess(
        process.execPath,
        ['--import', pathToFileURL(join(repoRoot, 'bench', 'rss-reporter.mjs')).href, join(distDir, 'cli.js'), 'compile', large.registry, '--root', large.dir, '--config', large.config, '--target', target],
        { cwd: large.dir },
      ),
    )
    const match = /oac-bench:max-rss-kib (\d+)/.exec(result.stderr)
    if (!match) throw new Error(`the CLI child reported no peak RSS:\n${result.stderr}`)
    const mb = Number(match[1]) / 1024
    return { values: { peak_rss_mb_1000_tools: mb }, details: [`oac compile of 1,000 tools in a child: peak RSS ${mb.toFixed(0)} MB, ${ms(cliMs)} wall time (node start included)`] }
  } finally {
    await removeDir(target)
  }
}

/** What Claude Code hands a PreToolUse hook for a shell call the guard blocks. */
const SHELL_EVENT = JSON.stringify({ session_id: 'bench', cwd: '.', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } })

/**
 * hook_start_vs_node: the generated project's guard hook answering one event as Claude Code runs it
 * (`node scripts/hooks/guard.mjs --harness claude`, the event on stdin, its block on stdout) / bare node
 * reading stdin. The guard watches one of the tools too: its script leaves that tool (and zod) out. The
 * detail counts the ES modules the hook loads (on Node 22.15 and later).
 */
export async function hookStart({ target, rounds, node, log }) {
  const script = join(target, 'scripts', 'hooks', 'guard.mjs')
  const samples = await rotate(
    {
      hook: async () => {
        const run = await runProcess(node, [script, '--harness', 'claude'], { cwd: target, input: SHELL_EVENT })
        if (!run.stdout.includes('"deny"')) throw new Error(`the guard did not block: ${run.stdout}${run.stderr}`)
        return run
      },
      'bare node': () => runProcess(node, ['-e', FLOOR_SCRIPT], { cwd: target, input: SHELL_EVENT }),
      // The same as an ES module: what node's ES module loader costs a script before any code of ours.
      'bare ES module': () => runProcess(node, ['--input-type=module', '-e', FLOOR_SCRIPT], { cwd: target, input: SHELL_EVENT }),
    },
    { rounds, warmup: 2, log },
  )
  const hookMs = median(samples.hook)
  const floorMs = median(samples['bare node'])
  const moduleMs = median(samples['bare ES module'])
  // One more run, untimed, that counts the ES modules the hook loads (each is a file to find, read and link at every event).
  const counted = await runProcess(node, ['--import', pathToFileURL(join(repoRoot, 'bench', 'module-reporter.mjs')).href, script, '--harness', 'claude'], { cwd: target, input: SHELL_EVENT })
  const modules = /oac-bench:modules (\d+)/.exec(counted.stderr)?.[1]
  return {
    ratio: hookMs / floorMs,
    detail:
      `hook start under node ${await nodeVersion(node)}: node scripts/hooks/guard.mjs --harness claude ${ms(hookMs)}${modules ? ` (${modules} ES modules loaded)` : ''}, bare node reading stdin ${ms(floorMs)}, ` +
      `the same as an ES module ${ms(moduleMs)}, ${(moduleMs / floorMs).toFixed(2)} x bare node (median of ${rounds})`,
  }
}

/**
 * hook_in_process_vs_tool_call: one event of the guard hook run in the harness's process, as the generated
 * plugins of opencode, Kilo, pi and oh-my-pi run it (the hook script imported once, then `handle`), / the
 * call of the tool it guards as those harnesses make it (the process bridge: `node scripts/<tool>.mjs --json`).
 */
export async function hookInProcess({ small, target, rounds, node, log }) {
  const tool = small.tools[0]
  const { started } = await import(pathToFileURL(join(target, 'scripts', 'hooks', 'guard.mjs')).href)
  const hook = await started
  const event = { kind: 'beforeTool', harness: 'opencode', cwd: target, nativeTool: 'bash', input: { command: 'rm -rf build' } }
  const inProcess = async () => {
    const outcome = await hook.handle(event)
    if (outcome.answer?.kind !== 'block') throw new Error(`the guard did not block: ${JSON.stringify(outcome)}`)
  }
  const script = join(target, 'scripts', `${tool.name}.mjs`)
  const call = () => runProcess(node, [script, '--json'], { cwd: target, input: JSON.stringify(tool.sample) })
  const samples = await rotate({ hook: inProcess, 'tool call': call }, { rounds, warmup: 1, log })
  const hookMs = median(samples.hook)
  const callMs = median(samples['tool call'])
  return {
    values: { hook_in_process_vs_tool_call: hookMs / callMs },
    details: [`one guard event in-process (opencode, Kilo, pi, oh-my-pi): ${ms(hookMs)}; the call of ${tool.name} it guards, through a process: ${ms(callMs)} (median of ${rounds})`],
  }
}

// One stdio MCP server written with the plain SDK, as a team's server would be: one tool.
const NOTES_SERVER = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
const server = new McpServer({ name: 'notes', version: '1.0.0' })
server.registerTool('read_note', { description: 'Reads the note.' }, async () => ({ content: [{ type: 'text', text: 'a note' }] }))
await server.connect(new StdioServerTransport())
`

/**
 * Starts a pi session on a project through pi's own SDK as its CLI does (the extensions loaded, then
 * bound, which emits session_start), prints its tools' names and exits.
 */
const PI_START = `import { createAgentSession, SessionManager } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/index.js')).href)}
const { session, extensionsResult } = await createAgentSession({ cwd: process.cwd(), agentDir: process.env.PI_CODING_AGENT_DIR, sessionManager: SessionManager.inMemory() })
await session.bindExtensions({})
console.log(JSON.stringify(extensionsResult.extensions.map((extension) => extension.path)))
process.exit(0)
`

/**
 * A model on loopback for pi's print mode: it answers each chat request with one word at once, and
 * hands \`onRequest\` the names of the tools the request offered, as soon as it has read the request.
 */
async function oneWordModel(onRequest) {
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      onRequest({ at: performance.now(), tools: (JSON.parse(body).tools ?? []).map((tool) => tool.function?.name) })
      const chunk = (choice) => `data: ${JSON.stringify({ id: 'chatcmpl_bench', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [choice] })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(chunk({ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }) + chunk({ index: 0, delta: {}, finish_reason: 'stop' }) + 'data: [DONE]\n\n')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) }
}

/**
 * pi_bridge_start_vs_pi: pi's start (a fresh process: pi's SDK loads the project's extensions and binds
 * them, as its CLI does before it shows its prompt) in a project whose registry has one stdio MCP server
 * (our bridge extension) / in the same project without the server (no extension).
 * pi_bridge_cost_vs_server_start: what the bridge adds to that start / the server's own start (spawn ->
 * tools/list answered, by a bare JSON-RPC peer).
 * pi_bridge_prompt_cost_vs_server_start: the same for the first prompt: pi's CLI in print mode, from its
 * spawn to the model's request, which must offer the server's tool: what the bridge adds there / the
 * server's own start. A tool cannot be offered before its server has listed it, and the server starts
 * only when pi loads the extension, so this one stays above what the server's start alone takes by what
 * pi has left to do by then.
 */
export async function piBridge({ rounds, node, log }) {
  const dir = await tempDir('pi-bridge')
  const requests = []
  const model = await oneWordModel((request) => requests.push(request))
  try {
    mkdirSync(join(dir, 'project', 'agents'), { recursive: true })
    mkdirSync(join(dir, 'agent'), { recursive: true })
    writeFileSync(join(dir, 'agent', 'models.json'), JSON.stringify({ providers: { bench: { baseUrl: `${model.url}/v1`, api: 'openai-completions', apiKey: 'bench-key', models: [{ id: 'bench' }] } } }))
    writeFileSync(join(dir, 'project', 'package.json'), '{ "type": "module" }\n')
    const server = join(dir, 'project', 'notes-server.mjs')
    writeFileSync(server, NOTES_SERVER)
    writeFileSync(
      join(dir, 'project', 'agents', 'registry.ts'),
      `import { defineMcpServer, defineRegistry } from 'unplugin-oac'\n` +
        `const notes = defineMcpServer({ name: 'notes', command: ${JSON.stringify(node)}, args: [${JSON.stringify(server)}] })\n` +
        `export const withServer = defineRegistry({ agents: [], mcpServers: [notes] })\n` +
        `export const without = defineRegistry({ agents: [] })\n`,
    )
    // The server imports the SDK from the repository's node_modules, as the generated projects do.
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'project', 'node_modules'), 'dir')
    const withBridge = await compileInto({ dir: join(dir, 'project'), registry: 'agents/registry.ts:withServer' }, 'pi-bridge-with', { harnesses: ['pi'] })
    const without = await compileInto({ dir: join(dir, 'project'), registry: 'agents/registry.ts:without' }, 'pi-bridge-without', { harnesses: ['pi'] })
    const startScript = join(dir, 'pi-start.mjs')
    writeFileSync(startScript, PI_START)
    // A wide bound, so that a round on a loaded machine measures a slow start rather than a server left out.
    const env = { ...process.env, PI_CODING_AGENT_DIR: join(dir, 'agent'), OAC_MCP_BRIDGE_WAIT_MS: '60000' }
    const piStart = async (cwd, expectBridged) => {
      const { stdout } = await runProcess(node, [startScript], { cwd, env })
      const bridged = JSON.parse(stdout.trim().split('\n').at(-1)).some((path) => path.endsWith('oac-tools-mcp.ts'))
      if (bridged !== expectBridged) throw new Error(`pi in ${cwd} ${bridged ? 'loaded' : 'did not load'} the bridge extension:\n${stdout}`)
    }
    const cli = join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js')
    const toRequest = { 'pi -p with the bridge and one server': [], 'pi -p': [] }
    const piPrompt = (name, cwd, expectBridged) => async () => {
      requests.length = 0
      const since = performance.now()
      await runProcess(node, [cli, '-p', '--offline', '--no-session', '--model', 'bench/bench', 'Go.'], { cwd, env })
      if (requests.length !== 1) throw new Error(`pi -p in ${cwd} made ${requests.length} model requests`)
      const [{ at, tools }] = requests
      if (tools.includes('notes_read_note') !== expectBridged) throw new Error(`pi -p in ${cwd}: the model was offered ${tools.join(', ')}`)
      toRequest[name].push(at - since)
    }
    const serverStart = async () => {
      const peer = new StdioPeer(node, [server], { cwd: dir })
      try {
        const tools = await mcpHandshake(peer)
        if (tools.length !== 1) throw new Error(`the notes server listed ${tools.length} tools\n${peer.stderr}`)
      } finally {
        // The server exits when its stdin closes; that is not part of its start.
        void peer.close()
      }
    }
    const samples = await rotate(
      {
        'pi with the bridge and one server': () => piStart(withBridge, true),
        pi: () => piStart(without, false),
        'the server alone': serverStart,
        'pi -p with the bridge and one server': piPrompt('pi -p with the bridge and one server', withBridge, true),
        'pi -p': piPrompt('pi -p', without, false),
      },
      { rounds, warmup: 1, log },
    )
    const withMs = median(samples['pi with the bridge and one server'])
    const piMs = median(samples.pi)
    const serverMs = median(samples['the server alone'])
    // The warm-up round's are the first of each.
    const promptWithMs = median(toRequest['pi -p with the bridge and one server'].slice(1))
    const promptMs = median(toRequest['pi -p'].slice(1))
    await Promise.all([removeDir(withBridge), removeDir(without)])
    return {
      values: {
        pi_bridge_start_vs_pi: withMs / piMs,
        pi_bridge_cost_vs_server_start: (withMs - piMs) / serverMs,
        pi_bridge_prompt_cost_vs_server_start: (promptWithMs - promptMs) / serverMs,
      },
      details: [
        `pi start under node ${await nodeVersion(node)} (its SDK loads and binds the project's extensions): ${ms(withMs)} with the bridge and one stdio MCP server, ${ms(piMs)} without, ` +
          `+${ms(withMs - piMs)}; the server's own start (spawn -> tools/list) ${ms(serverMs)}; pi -p to the model's first request ${ms(promptWithMs)} with the bridge (the server's tool offered), ` +
          `${ms(promptMs)} without, +${ms(promptWithMs - promptMs)} (medians of ${rounds})`,
      ],
    }
  } finally {
    await model.close()
    await removeDir(dir)
  }
}
