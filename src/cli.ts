#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { HARNESSES, type Harness } from './define/types.js'
import type { Plan, WriteReport } from './api.js'
import { showStacks } from './debug.js'
import { type Diagnostic, hasErrors } from './diagnostics.js'
import { packageRoot } from './package-paths.js'

const HELP = `oac: compile agents and tools into every harness's native files

Usage:
  oac compile <registry>[:<export>] [options]
  oac remove [--target <dir> | --scope user] [--server-name <name>] [--dry-run] [--reporter <text|json>]
  oac hook <name> [--target <dir> | --scope user] [--tool <tool>] [--input <json>] [...]   (oac hook --help)

  <registry> is a module path, e.g. agents/registry.ts:registry (also agents/registry.ts#registry;
  with no export named, the default export, else the module's one registry export). The original
  tool's form agents:registry also works: a path without extension resolves like a module
  (agents.ts, agents/index.ts, ...).

Options:
  --config <name>          config profile to use (default: "default"; required when the registry
                           has configs and none is called "default")
  --target <dir>           folder to write the agent tree into (default: .)
  --plugin <dir>           write a plugin folder instead, which every harness installs (Claude Code's
                           and Codex's plugins, a Gemini CLI extension, a pi package, an opencode
                           plugin) and npm publishes as it is; its name, version and description come
                           from the project's package.json unless given:
  --plugin-name <name>     the plugin's name (lowercase letters, digits and hyphens)
  --plugin-version <ver>   the plugin's version (semver)
  --scope <project|user>   user: install for the user running it, in their home folder (~/.claude/,
                           ~/.codex/, ~/.config/opencode/, ...), so every harness sees the agents and
                           tools in any folder; the scripts go to ~/.local/share/oac/<server name>/
                           (default: project)
  --root <dir>             project root; relative paths resolve from here (default: current folder)
  --native-tools           emit native tool forms: MCP server, opencode/pi/omp shims (default)
  --no-native-tools        keep every tool on the bash route (scripts/<tool>.mjs) only
  --harness <list>         comma-separated harnesses: ${HARNESSES.join(',')} (default: the config's, else all)
  --server-name <name>     the MCP server's name in .mcp.json and Codex TOML (default: oac-tools)
  --bridge <kind>          how native shims run a tool: process (default) or inline
  --no-codex-config        do not merge the MCP block into .codex/config.toml (add the server to your own Codex config)
  --force                  overwrite user files and merged keys in the way (a key's value comes back later)
  --check                  write nothing; exit 1 when the target differs from what would be generated
  --dry-run                write nothing; print what would change
  --reporter <text|json>   output format (default: text)
  -h, --help               show this help
  -v, --version            print the version of unplugin-oac

\`oac remove\` takes out everything a compile with that server name (default: oac-tools) wrote into
the target, as its manifest lists it: its files, and its entries in your settings files, which get
back the bytes they had before.

\`oac hook\` runs a compiled hook on a sample event in each harness, as the harness runs it, and
prints what each harness is told (block, allow, ask, rewrite, context) and any error.

Exit codes: 0 success, 1 diagnostics with errors (or drift with --check), 2 bad command line.
`

interface Parsed {
  /** `remove`: take out what the server's compiles wrote (no registry). */
  command: 'compile' | 'remove'
  registry: string
  config?: string
  target: string
  /** Set with --plugin: the target is a plugin folder of this identity (what is not given comes from package.json). */
  plugin?: { name?: string; version?: string }
  /** `user` with --scope user: the target is the user's home. */
  scope?: 'user'
  root: string
  nativeTools?: boolean
  harnesses?: Harness[]
  serverName?: string
  bridge?: 'process' | 'inline'
  codexConfig?: boolean
  force: boolean
  mode: 'write' | 'check' | 'dry-run'
  reporter: 'text' | 'json'
}

class UsageError extends Error {}

function parseCommandLine(argv: string[]): Parsed | 'help' | 'version' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    allowNegative: true,
    strict: true,
    options: {
      config: { type: 'string' },
      target: { type: 'string' },
      plugin: { type: 'string' },
      'plugin-name': { type: 'string' },
      'plugin-version': { type: 'string' },
      scope: { type: 'string' },
      root: { type: 'string' },
      'native-tools': { type: 'boolean' },
      harness: { type: 'string' },
      'server-name': { type: 'string' },
      bridge: { type: 'string' },
      'codex-config': { type: 'boolean' },
      force: { type: 'boolean' },
      check: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      reporter: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  })
  if (values.help) return 'help'
  if (values.version) return 'version'
  const [command, ...args] = positionals
  if (command !== 'compile' && command !== 'remove') throw new UsageError(command ? `unknown command "${command}"; the commands are "compile", "remove" and "hook"` : 'missing command')
  const registry = command === 'compile' ? args.shift() : ''
  if (registry === undefined) throw new UsageError('missing <registry>, e.g. oac compile agents/registry.ts:registry')
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`)
  if (command === 'remove') {
    const compileOnly = ['config', 'plugin', 'plugin-name', 'plugin-version', 'native-tools', 'harness', 'bridge', 'codex-config', 'force', 'check'].find((name) => name in values)
    if (compileOnly) throw new UsageError(`--${compileOnly} goes with oac compile; oac remove takes --target or --scope user, --server-name, --dry-run and --reporter`)
  }
  if (values.check && values['dry-run']) throw new UsageError('--check and --dry-run exclude each other')
  if (values.plugin !== undefined && values.target !== undefined) throw new UsageError('--plugin names the folder to write, as --target does: give one of them')
  if (values.plugin === undefined && (values['plugin-name'] !== undefined || values['plugin-version'] !== undefined)) {
    throw new UsageError('--plugin-name and --plugin-version go with --plugin <dir>')
  }
  if (values.scope !== undefined && values.scope !== 'project' && values.scope !== 'user') throw new UsageError(`--scope must be project or user, not "${values.scope}"`)
  const user = values.scope === 'user'
  if (user && (values.target !== undefined || values.plugin !== undefined)) throw new UsageError(`--scope user writes into your home folder (${homedir()}): leave out ${values.target !== undefined ? '--target' : '--plugin'}`)
  const reporter = values.reporter ?? 'text'
  if (reporter !== 'text' && reporter !== 'json') throw new UsageError(`--reporter must be text or json, not "${reporter}"`)
  const bridge = values.bridge
  if (bridge !== undefined && bridge !== 'process' && bridge !== 'inline') {
    throw new UsageError(`--bridge must be process or inline, not "${bridge}"`)
  }
  let harnesses: Harness[] | undefined
  if (values.harness !== undefined) {
    const names = values.harness.split(',').map((h) => h.trim()).filter(Boolean)
    const unknown = names.filter((h) => !(HARNESSES as readonly string[]).includes(h))
    if (unknown.length > 0 || names.length === 0) {
      throw new UsageError(`--harness takes a comma-separated list of ${HARNESSES.join(', ')}; got "${values.harness}"`)
    }
    harnesses = names as Harness[]
  }
  return {
    command,
    registry,
    config: values.config,
    target: user ? homedir() : (values.plugin ?? values.target ?? '.'),
    ...(user && { scope: 'user' as const }),
    ...(values.plugin !== undefined && {
      plugin: { ...(values['plugin-name'] !== undefined && { name: values['plugin-name'] }), ...(values['plugin-version'] !== undefined && { version: values['plugin-version'] }) },
    }),
    root: resolve(values.root ?? '.'),
    nativeTools: values['native-tools'],
    harnesses,
    serverName: values['server-name'],
    bridge,
    codexConfig: values['codex-config'],
    force: values.force ?? false,
    mode: values.check ? 'check' : values['dry-run'] ? 'dry-run' : 'write',
    reporter,
  }
}

/** Runs the CLI and returns the exit code. The pipeline is imported only when there is work to do. */
export async function main(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  if (argv[0] === 'hook') return (await import('./cli/hook.js')).hookCommand(argv.slice(1), out, err)
  let parsed: Parsed | 'help' | 'version'
  try {
    parsed = parseCommandLine(argv)
  } catch (error) {
    err(`oac: ${error instanceof Error ? error.message : String(error)}\nRun "oac --help" for usage.\n`)
    return 2
  }
  if (parsed === 'help') {
    out(HELP)
    return 0
  }
  if (parsed === 'version') {
    out(`${ownVersion()}\n`)
    return 0
  }
  const [api, report] = await Promise.all([import('./api.js'), import('./cli/report.js')])
  const json = parsed.reporter === 'json'
  if (parsed.command === 'remove') return remove(api, report, parsed, out, err)
  try {
    const outcome = await run(api, parsed)
    const errors = hasErrors(outcome.diagnostics)
    const files = report.fileLines(outcome.report, parsed.mode, { target: outcome.target, owner: outcome.plan.serverName, diagnostics: outcome.diagnostics })
    const drift = parsed.mode === 'check' && files.some((f) => f.status !== 'unchanged')
    const failed = drift || errors
    if (json) {
      const agents = outcome.plan.agents.map((a) => a.name)
      const tools = outcome.plan.tools.map((t) => t.name)
      out(`${JSON.stringify({ ok: !failed, mode: parsed.mode, diagnostics: outcome.diagnostics, files, agents, tools }, null, 2)}\n`)
      return failed ? 1 : 0
    }
    if (outcome.diagnostics.length > 0) err(`${report.formatDiagnostics(outcome.diagnostics)}\n`)
    const where = `${parsed.target.replace(/\/?$/, '/')}`
    if (parsed.mode === 'write') {
      out(`oac: compiled ${parsed.registry} (config ${outcome.plan.config}) into ${where}\n${report.formatTree(files)}\n`)
      return 0
    }
    const verb = parsed.mode === 'check' ? (drift ? 'is out of date' : 'is up to date') : 'would change'
    const stop = errors ? `\noac: writing it would stop at the errors above${parsed.force ? '' : ' (nothing is written while one is left)'}` : ''
    out(`oac: ${where} ${verb}\n${report.formatChanges(files)}${stop}\n`)
    return failed ? 1 : 0
  } catch (error) {
    const message = error instanceof Error ? (showStacks() ? (error.stack ?? error.message) : error.message) : String(error)
    const fix = `This is a bug in unplugin-oac: please report it${showStacks() ? ' with this stack' : ' (NODE_DEBUG=oac:stack adds the stack)'}.`
    const diagnostics: readonly Diagnostic[] = error instanceof api.OacError ? error.diagnostics : [{ severity: 'error', code: 'internal', message, fix }]
    if (json) out(`${JSON.stringify({ ok: false, mode: parsed.mode, diagnostics, files: [] }, null, 2)}\n`)
    else err(`${report.formatDiagnostics(diagnostics)}\noac: compile failed\n`)
    return 1
  }
}

/** `oac remove`: writes an empty tree for the server, which takes out all its manifest lists. */
async function remove(api: typeof import('./api.js'), report: typeof import('./cli/report.js'), parsed: Parsed, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const target = resolve(parsed.root, parsed.target)
  const owner = parsed.serverName ?? api.DEFAULT_SERVER_NAME
  const mode = parsed.mode === 'dry-run' ? 'dry-run' : 'write'
  const result = await api.writeOutputs([], { target, mode, force: false, owner })
  const failed = hasErrors(result.diagnostics)
  const files = report.fileLines(result, mode, { target, owner, diagnostics: result.diagnostics })
  if (parsed.reporter === 'json') {
    out(`${JSON.stringify({ ok: !failed, mode, diagnostics: result.diagnostics, files }, null, 2)}\n`)
    return failed ? 1 : 0
  }
  if (result.diagnostics.length > 0) err(`${report.formatDiagnostics(result.diagnostics)}\n`)
  if (failed) {
    err('oac: remove failed (nothing was removed)\n')
    return 1
  }
  const where = parsed.target.replace(/\/?$/, '/')
  if (files.length === 0) {
    const others = await api.owners(target)
    out(`oac: ${where} holds nothing of ${owner}${others.length > 0 ? ` (it holds ${others.join(', ')}: name one with --server-name)` : ''}\n`)
  }
  else out(`oac: ${mode === 'write' ? 'removed' : 'would remove'} ${owner} from ${where}\n${mode === 'write' ? report.formatTree(files) : report.formatChanges(files)}\n`)
  return 0
}

/** What the compile wrote, or in a check or dry run would write; throws OacError when it cannot compile (or write). */
interface Outcome {
  plan: Plan
  diagnostics: Diagnostic[]
  report: WriteReport
  /** The absolute target folder. */
  target: string
}

async function run(api: typeof import('./api.js'), parsed: Parsed): Promise<Outcome> {
  const options = {
    registry: parsed.registry,
    root: parsed.root,
    config: parsed.config,
    harnesses: parsed.harnesses,
    nativeTools: parsed.nativeTools,
    serverName: parsed.serverName,
    bridge: parsed.bridge,
    codexConfig: parsed.codexConfig,
    plugin: parsed.plugin,
    scope: parsed.scope,
  }
  const target = resolve(parsed.root, parsed.target)
  if (parsed.mode === 'write') {
    const result = await api.compile({ ...options, target: parsed.target, force: parsed.force, mode: 'write' })
    return { plan: result.plan, diagnostics: result.diagnostics, report: result.report, target }
  }
  const compiler = new api.Compiler(parsed.root, { watch: false })
  try {
    const generated = await compiler.generate(options)
    const plan = (force: boolean) => api.writeTarget(generated.files, generated.plan, { target, mode: parsed.mode, force, owner: generated.plan.serverName })
    const report = await plan(parsed.force)
    // A plan that stops at a hand edit or a user file in the way lists nothing; planned as if forced
    // (it writes nothing either way) it lists everything that differs, the file in the way included.
    const full = hasErrors(report.diagnostics) && !parsed.force ? await plan(true) : report
    return { plan: generated.plan, diagnostics: [...generated.diagnostics, ...report.diagnostics], report: full, target }
  } finally {
    await compiler.dispose()
  }
}

function ownVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version
}

function isMainModule(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url)
  } catch {
    return false
  }
}

// Run when executed as the `oac` bin (through npm's symlink too), not when imported by tests.
if (isMainModule()) {
  main(process.argv.slice(2), (t) => process.stdout.write(t), (t) => process.stderr.write(t)).then((code) => {
    process.exitCode = code
  })
}
