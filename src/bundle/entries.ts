import { join } from 'node:path'
import { harness } from '../compile/harnesses/index.js'
import { mcpServerBridged } from '../compile/mcp-servers.js'
import { targetOf } from '../compile/target.js'
import type { Plan, PlannedHook, PlannedSource, PlannedTool } from '../compile/plan.js'
import { BUILTIN_TOOLS } from '../define/hooks.js'
import type { JsonValue } from '../define/types.js'
import type { HookSpec } from '../runtime/hook-types.js'
import { jsLineComment, jsString, jsValue } from '../emit/codegen/escape.js'
import { mcpAnnotations, mcpOutputSchema } from '../emit/codegen/mcp-tool-list.js'
import type { ToolExport } from './tool-module.js'

/** The folder, inside the scripts folder, of each tool's code file (`tools/<tool>.mjs`); `scripts/<tool>.mjs` starts it. */
export const TOOL_CODE_FOLDER = 'tools'

/** True when the plan needs `scripts/mcp_tools_server.cjs`: native tools for a harness whose tools route is MCP, and a JSON tool to serve. */
export function needsMcpServer(plan: Plan): boolean {
  return plan.nativeTools && plan.harnesses.some((id) => harness(id).toolRoute === 'mcp') && plan.tools.some((t) => t.json)
}

/** True when the plan needs `scripts/mcp_bridge.cjs`: an MCP server someone else wrote that the bridge gives a harness. */
export function needsMcpBridge(plan: Plan): boolean {
  return plan.harnesses.some((id) => (plan.mcpServers ?? []).some((server) => mcpServerBridged(server, id, targetOf(plan))))
}

/** The vendor files of our own runtime, relative to the scripts folder (see vendor.ts). */
export interface RuntimeFiles {
  /** What `scripts/<tool>.mjs` imports first: see runtime/start.ts. */
  start: string
  /** The runtime a tool's code file imports: see runtime/script.ts. */
  script: string
  /** The MCP server's runtime, SDK included (CommonJS). */
  mcpServer: string
  /** The MCP bridge's runtime, the SDK's client included (an ES module, which `mcpBridgeStart`'s caller imports). */
  mcpBridge: string
  /** What starts the bridge's stdio servers before that runtime loads (see runtime/mcp-bridge-start.ts; CommonJS, as MCP_BRIDGE_FILE). */
  mcpBridgeStart: string
  /** Per schema package, the runtime that checks a tool's input with that package: see runtime/check-*.ts. */
  check: Record<PlannedTool['schemaPackage'], string>
}

export interface EntryContext {
  /** The project root: tool modules are `root + tool.source.file`. */
  root: string
  runtime: RuntimeFiles
  /** Our package version, announced by the MCP server. */
  version: string
}

/**
 * Data embedded in the MCP server's list, as a JSON string parsed at run time: V8 compiles a JSON
 * string faster than the same data as object literals (a process evaluating a 100-tool list started
 * about 15 ms later with literals, on Node 22), and the server starts at every session. JSON.parse
 * also keeps a `"__proto__"` key a property.
 */
function jsonData(value: JsonValue): string {
  return `JSON.parse(${jsString(JSON.stringify(value))})`
}

/** The folder, inside the scripts folder, of each hook's script (`hooks/<hook>.mjs`) and code file (`hooks/<hook>.code.mjs`). */
export const HOOK_FOLDER = 'hooks'

/** The name the hook runtime a hook script carries is bound to there (see Vendor.hookRuntime). */
export const HOOK_RUNTIME_GLOBAL = 'oacHookRuntime'

/** A definition whose module esbuild builds into a code file of its own: a tool's, or a hook's. */
export interface CodeUnit {
  /** Unique in the plan: `tool:<name>` or `hook:<name>`. */
  key: string
  kind: 'tool' | 'hook'
  name: string
  source: PlannedSource
  /** The code file, relative to the scripts folder; one folder deep, so that every code file imports the vendor files alike. */
  codeFile: string
}

/** The plan's tools and hooks, each a code file of its own. */
export function codeUnits(plan: Plan): CodeUnit[] {
  return [
    ...plan.tools.map((tool) => ({ key: `tool:${tool.name}`, kind: 'tool' as const, name: tool.name, source: tool.source, codeFile: toolCodeFile(tool) })),
    ...plan.hooks.map((hook) => ({ key: `hook:${hook.name}`, kind: 'hook' as const, name: hook.name, source: hook.source, codeFile: hookCodeFile(hook) })),
  ]
}

/** The absolute path of the module where the definition (`defineTool`, `defineHook`) was called. */
export function toolModulePath(root: string, definition: { source: PlannedSource }): string {
  return join(root, ...definition.source.file.split('/'))
}

/** The hook's code file, relative to the scripts folder. */
export function hookCodeFile(hook: PlannedHook): string {
  return `${HOOK_FOLDER}/${hook.name}.code.mjs`
}

/** The tool's code file, relative to the scripts folder. */
export function toolCodeFile(tool: PlannedTool): string {
  return `${TOOL_CODE_FOLDER}/${tool.name}.mjs`
}

/**
 * `scripts/<tool>.mjs`, the file harnesses run and import. It holds no tool code, so that what it
 * turns on first (Node's compile cache, source maps: they apply only to modules compiled later)
 * covers the tool's code, zod and the runtime, all imported after it. It carries what the runtime
 * needs to know of the tool (its spec: name, description, schema, env), so that the code file can be
 * the tool's module alone, bundled, which esbuild builds with no generated entry. The spec is a
 * literal with one member per line, so that a diff shows what changed (one tool's spec: its start
 * stayed within 4 ms of node loading zod alone, as before). Imported, it exports `tool` and
 * `invoke(input, options)` (the inline bridge); run by node, it is the tool's command line.
 */
export function toolLauncherSource(plan: Plan, tool: PlannedTool, context: EntryContext): string {
  const spec = { name: tool.name, description: tool.description, script: tool.script, schema: tool.schema, env: plan.env }
  const imports = [`./${toolCodeFile(tool)}`, `./${context.runtime.script}`, `./${context.runtime.check[tool.schemaPackage]}`]
  return [
    `// The command line and module of the tool "${jsLineComment(tool.name)}", generated by unplugin-oac from ${jsLineComment(tool.source.file)}.`,
    `import { startToolScript } from ${jsString(`./${context.runtime.start}`)}`,
    `export const { tool, invoke } = await startToolScript(import.meta.url, {`,
    `  source: ${jsString(tool.source.file)},`,
    `  spec: ${jsValue(spec, '  ')},`,
    `  load: () => Promise.all([${imports.map((path) => `import(${jsString(path)})`).join(', ')}]),`,
    `})`,
    '',
  ].join('\n')
}

/**
 * What esbuild builds `scripts/tools/<tool>.mjs` from, when not the tool's module itself: a module
 * that defines other tools too is given as a re-export of the tool's own export, so that tree
 * shaking leaves out what only the module's other exports use (an entry keeps all its exports).
 */
export function toolDefinitionEntry(unit: { source: PlannedSource }, context: EntryContext, definition: ToolExport): string {
  return `export { ${jsString(definition.exportName)} } from ${jsString(toolModulePath(context.root, unit))}\n`
}

/**
 * What the hook's script knows of it besides its code (see HookSpec): per harness that runs it, the
 * names its hooks see for the tools (ours and the built-ins, those the hook watches or all), what it
 * does in place of a decision it cannot carry, and the wire format of a command harness.
 */
export function hookSpec(plan: Plan, hook: PlannedHook): HookSpec {
  const spec: HookSpec = { name: hook.name, on: hook.on, onError: hook.onError, timeoutMs: hook.timeoutMs, env: plan.env, names: {}, fallbacks: {}, wires: {}, events: {} }
  const aboutTools = hook.on === 'beforeTool' || hook.on === 'afterTool'
  const ours = hook.tools?.ours ?? plan.tools.filter((tool) => tool.json).map((tool) => tool.name)
  const builtins = hook.tools?.builtins ?? BUILTIN_TOOLS
  for (const id of plan.harnesses) {
    const support = harness(id).hooks
    const event = support.events[hook.on]
    if (event === undefined) continue
    spec.events[id] = event
    if (aboutTools) {
      const names: Record<string, string> = Object.create(null)
      for (const name of builtins) for (const native of support.builtins[name] ?? []) names[native] = name
      for (const tool of ours) names[support.toolName(targetOf(plan).shownServerName(id), tool)] = tool
      spec.names[id] = names
    }
    const fallbacks = Object.fromEntries(Object.entries(support.limits).map(([kind, limit]) => [kind, limit.instead]))
    if (Object.keys(fallbacks).length > 0) spec.fallbacks[id] = fallbacks
    if (support.registration.kind === 'command') spec.wires[id] = support.wire
  }
  if (hook.tools) spec.watch = [...hook.tools.ours, ...hook.tools.builtins]
  return spec
}

/**
 * `scripts/hooks/<hook>.mjs`, the command a harness runs for the hook (and the module a generated plugin
 * imports). It carries the hook runtime in itself (`runtime`, the statement Vendor.hookRuntime builds)
 * and the hook's spec, a literal with one member per line, and imports the hook's code file, which holds
 * the unplugin-oac functions the hook calls: a harness runs a command hook at every event it watches,
 * and two modules load sooner than a runtime of several shared vendor files. Like a tool's launcher, it
 * turns on what applies to the code loaded after it. Its `started` is the loaded hook, for a plugin; its
 * failure to load is theirs to report (caught here, so that it is not an unhandled rejection of the
 * harness's process before a plugin first runs the hook).
 */
export function hookLauncherSource(plan: Plan, hook: PlannedHook, context: EntryContext, runtime: string): string {
  return [
    `// The command and module of the hook "${jsLineComment(hook.name)}", generated by unplugin-oac from ${jsLineComment(hook.source.file)}.`,
    `// The hook runtime of unplugin-oac ${jsLineComment(context.version)} is in the script itself, on the next line: a harness starts the hook at every event, and each module more to load delays the answer.`,
    runtime.trimEnd(),
    `export const started = ${HOOK_RUNTIME_GLOBAL}.startHookScript(import.meta.url, {`,
    `  source: ${jsString(hook.source.file)},`,
    `  spec: ${jsValue(hookSpec(plan, hook) as unknown as JsonValue, '  ')},`,
    `  load: () => import(${jsString(`./${hook.name}.code.mjs`)}),`,
    `})`,
    `started.catch(() => undefined)`,
    '',
  ].join('\n')
}

/** How the server names a sibling tool script; resolved at run time. */
export function siblingScript(tool: PlannedTool): string {
  return `./${tool.name}.mjs`
}

/**
 * `scripts/mcp_tools_server.cjs`: every JSON tool, served from the sibling `scripts/<tool>.mjs`,
 * imported on the first call to it. The server's code (the SDK, zod) is a vendor file, so this file
 * changes only with the list of tools. CommonJS, so that the compile cache and source maps it turns
 * on first apply to the vendor file it `require`s next.
 */
export function mcpServerSource(plan: Plan, context: EntryContext): string {
  const tools = plan.tools
    .filter((tool) => tool.json)
    .map((tool) => {
      const outputSchema = mcpOutputSchema(tool)
      const annotations = mcpAnnotations(tool)
      return [
        `  {`,
        `    name: ${jsString(tool.name)},`,
        ...(tool.title === undefined ? [] : [`    title: ${jsString(tool.title)},`]),
        `    description: ${jsString(tool.description)},`,
        `    inputSchema: ${jsonData(tool.schema)},`,
        ...(outputSchema ? [`    outputSchema: ${jsonData(outputSchema)},`] : []),
        ...(annotations ? [`    annotations: ${jsonData(annotations)},`] : []),
        `    load: () => import(${jsString(siblingScript(tool))}),`,
        `  },`,
      ].join('\n')
    })
  return [
    `// The MCP server of the JSON tools, generated by unplugin-oac.`,
    `"use strict"`,
    `require("node:module").enableCompileCache?.()`,
    `if (process.env.OAC_DEBUG) process.setSourceMapsEnabled(true)`,
    `const { startMcpServer } = require(${jsString(`./${context.runtime.mcpServer}`)})`,
    `const tools = [`,
    ...tools,
    `]`,
    `startMcpServer({ name: ${jsString(plan.serverName)}, version: ${jsString(context.version)}, env: ${jsonData(plan.env)}, tools }).catch((error) => {`,
    `  process.stderr.write(String(error instanceof Error ? error.message : error) + "\\n")`,
    `  process.exit(1)`,
    `})`,
    '',
  ].join('\n')
}

/**
 * `scripts/mcp_bridge.cjs`, which every bridge extension (pi's, oh-my-pi's, Cline's, Kilo's) requires:
 * the plan's MCP servers, each variable a reference by name (`{ "env": "NAME" }`, filled at run time
 * from the harness's environment, never a value), handed to the bridge's runtime
 * (src/runtime/mcp-bridge.ts), a vendor file, so that this file changes only with the servers. The
 * stdio servers start first (a small vendor file), and the runtime, with the SDK's client, loads while
 * they do (Node's own `import()`, from this CommonJS file).
 */
export function mcpBridgeSource(plan: Plan, context: EntryContext): string {
  const servers = (plan.mcpServers ?? []).map((server) =>
    server.transport === 'stdio'
      ? { name: server.name, transport: server.transport, command: server.command, args: server.args, env: server.env }
      : { name: server.name, transport: server.transport, url: server.url, ...(server.bearerTokenEnv !== undefined && { bearerTokenEnv: server.bearerTokenEnv }), headers: server.headers },
  )
  return [
    `// The MCP servers of the registry, for the harnesses our extension bridges them to, generated by unplugin-oac.`,
    `"use strict"`,
    `const { startServers } = require(${jsString(`./${context.runtime.mcpBridgeStart}`)})`,
    `const servers = ${jsValue(servers as unknown as JsonValue, '')}`,
    `/** Starts the stdio servers named in \`only\` (a harness's own configuration may carry the others), then loads the SDK's client while they start, connects to every one at once and lists their tools (see bridgeServers). */`,
    `exports.connectMcpServers = async function connectMcpServers({ cwd, servers: only, ...options }) {`,
    `  const started = startServers(servers.filter((server) => only.includes(server.name)), cwd)`,
    `  try {`,
    `    const { bridgeServers } = await import(${jsString(`./${context.runtime.mcpBridge}`)})`,
    `    return bridgeServers(started, options)`,
    `  } catch (error) {`,
    `    for (const { spawned } of started.servers) spawned?.process.kill()`,
    `    throw error`,
    `  }`,
    `}`,
    '',
  ].join('\n')
}
