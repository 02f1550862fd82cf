import { MCP_BRIDGE_FILE } from '../../compile/script-names.js'
import { harness } from '../../compile/harnesses/index.js'
import type { McpBridgeSupport } from '../../compile/harnesses/types.js'
import type { Plan } from '../../compile/plan.js'
import { targetOf } from '../../compile/target.js'
import { bridgedServers } from '../mcp-scope.js'
import type { Harness } from '../../define/types.js'
import { jsString } from './escape.js'
import { generatedHeader } from './bridge.js'

/*
 * What the bridge extensions of pi, oh-my-pi, Cline and Kilo share: the header naming the servers, the
 * load of `scripts/mcp_bridge.cjs` (one script for all, with the SDK's client bundled: nothing from the
 * project's node_modules), and the call that connects, with the harness's limits from its description.
 * Each emitter wraps the tools it gets into its harness's own tool shape.
 */

/** True when `id` gets some of the plan's MCP servers through the bridge. */
export function bridgesMcpServers(plan: Plan, id: Harness): boolean {
  return bridgedServers(plan, id).length > 0
}

/** The bridge file's name, beside the tools' (`<server>-mcp`): one per MCP server name, as the tools' extension. */
export function bridgeName(plan: Plan): string {
  return `${plan.serverName}-mcp`
}

/** The one-line header of harness `id`'s bridge extension, naming the servers it bridges. */
export function bridgeHeader(plan: Plan, id: Harness): string {
  const bridged = bridgedServers(plan, id)
  const servers = bridged.map((server) => `${JSON.stringify(server.name)} (${server.source.file})`).join(', ')
  return generatedHeader(`the MCP ${bridged.length === 1 ? 'server' : 'servers'} ${servers}`)
}

/** The types of what the bridge script gives, for the bottom of an extension (src/runtime/mcp-bridge.ts has them in full). */
export const BRIDGE_TYPES = `/** What scripts/mcp_bridge.cjs gives (unplugin-oac's src/runtime/mcp-bridge.ts). */
interface McpBridge {
  tools: Array<{
    name: string
    title?: string
    description: string
    inputSchema: Record<string, unknown>
    call(
      input: unknown,
      call: { signal?: AbortSignal; progress?: (message: string) => void },
    ): Promise<{ isError: boolean; text: string; content: Array<{ type: "text"; text: string } | { type: "image"; data: string; mimeType: string }> }>
  }>
  close(): Promise<void>
}
`

/** The imports the statements of connectCode need, for the top of an extension. */
export function connectImports(plan: Plan): string[] {
  return [`import { createRequire } from "node:module"`, ...targetOf(plan).scriptUrlImports]
}

/**
 * The statements that connect (for the body of an async factory): `bridge` is then the bridge with the
 * servers' tools. `cwd` and `report` are JS expressions (report takes a message); `taken` the names the
 * harness has already (its built-ins and our tools). The script is loaded by Node's own `require`, not
 * by the harness's loader (pi's and Cline's jiti compile every module they import, which would delay
 * the servers' start by as long).
 */
export function connectCode(plan: Plan, id: Harness, at: string, options: { cwd: string; report: string; taken: readonly string[] }, indent: string): string {
  const support: McpBridgeSupport = harness(id).mcp.bridge!
  const script = targetOf(plan).scriptFrom(at, `${targetOf(plan).scriptsFolder}/${MCP_BRIDGE_FILE}`)
  return [
    `const { connectMcpServers } = createRequire(${targetOf(plan).scriptUrl(jsString(script))})(${jsString(`./${MCP_BRIDGE_FILE}`)})`,
    `const bridge: McpBridge = await connectMcpServers({`,
    `  cwd: ${options.cwd},`,
    // The script holds every server of the plan; a harness whose configuration carries some of them bridges the others alone.
    `  servers: ${JSON.stringify(bridgedServers(plan, id).map((server) => server.name))},`,
    `  waitMs: ${support.waitMs},`,
    ...(support.limit ? [`  limit: ${JSON.stringify(support.limit)},`] : []),
    `  nameMax: ${support.nameMax},`,
    `  taken: ${JSON.stringify([...new Set(options.taken)])},`,
    `  report: ${options.report},`,
    `})`,
  ]
    .map((line) => `${indent}${line}`)
    .join('\n')
}

/** What differs between pi's and oh-my-pi's bridge extensions (both load an extension with pi's ExtensionAPI). */
export interface DeferredBridgeParts {
  /** The line importing the harness's `ExtensionAPI` type. */
  apiImport: string
  /** The names the harness has already (its built-ins and our tools). */
  taken: readonly string[]
  /** Statements of the extension's body before the tools are registered (at two spaces). */
  setup: readonly string[]
  /** The object `pi.registerTool` gets for `tool`, a bridged tool (its lines, at six spaces). */
  definition: readonly string[]
}

/**
 * The extension that gives harness `id` (pi, oh-my-pi) the tools of the plan's MCP servers, written at
 * `path`, without holding up the harness's start: the factory starts connecting and returns, and
 * `session_start` (which both harnesses await before they take a prompt) only sets where messages go.
 * Each listed tool is registered once the servers have answered (within the bridge's bound, see
 * src/runtime/mcp-bridge.ts) and the session has started. A prompt sent before that waits for the
 * servers at `before_agent_start`, which both await, and the first prompt registers there each tool
 * the session does not have yet: pi makes a tool active as it is registered, but oh-my-pi activates one
 * registered outside a handler later, on its own, and one registered within a handler before the
 * handler returns. A server's problem is a notice in the harness's UI, or a line on stderr without one.
 */
export function deferredBridgeExtension(plan: Plan, id: Harness, path: string, parts: DeferredBridgeParts): string {
  return [
    bridgeHeader(plan, id),
    ...connectImports(plan),
    parts.apiImport,
    '',
    'export default function (pi: ExtensionAPI) {',
    '  // What the bridge reports before the session can show it.',
    '  const pending: string[] = []',
    '  let say: ((message: string) => void) | undefined',
    '  const connecting = (async () => {',
    connectCode(plan, id, path, { cwd: 'process.cwd()', report: '(message: string) => (say ? say(message) : pending.push(message))', taken: parts.taken }, '    '),
    '    return bridge',
    '  })()',
    '  pi.on("session_shutdown", async () => (await connecting).close())',
    ...parts.setup,
    '  const register = (tools: McpBridge["tools"]) => {',
    '    for (const tool of tools) {',
    '      pi.registerTool({',
    ...parts.definition,
    '      })',
    '    }',
    '  }',
    '  pi.on("session_start", (_event, ctx) => {',
    `    say = ctx.hasUI ? (message) => ctx.ui.notify(\`${id}: \${message}\`, "warning") : (message) => console.error(\`${id}: \${message}\`)`,
    '    for (const message of pending.splice(0)) say(message)',
    `    // A failure to load the bridge shows at the first prompt (below), where ${harness(id).title} reports it.`,
    '    connecting.then(({ tools }) => register(tools), () => undefined)',
    '  })',
    '  let checked = false',
    '  pi.on("before_agent_start", async () => {',
    '    const { tools } = await connecting',
    '    if (checked) return',
    '    checked = true',
    '    const known = new Set(pi.getAllTools().map((tool) => tool.name))',
    '    register(tools.filter((tool) => !known.has(tool.name)))',
    '  })',
    '}',
    '',
    BRIDGE_TYPES,
  ].join('\n')
}
