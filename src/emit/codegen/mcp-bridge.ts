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
