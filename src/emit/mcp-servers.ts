import { harness } from '../compile/harnesses/index.js'
import type { McpEntryFormat } from '../compile/harnesses/types.js'
import type { Plan, PlannedHttpServer, PlannedMcpServer, PlannedMcpValue, PlannedStdioServer } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { mcpServerCommand } from './mcp-launcher.js'
import { configuredServers } from './mcp-scope.js'
import type { MergeFile } from './types.js'

/*
 * One server entry per configuration format, for our own server and for the servers someone else
 * wrote (`defineMcpServer`) alike: each harness's description says where its files are and how an
 * entry is written (src/compile/harnesses/mcp-formats.ts), and nothing here branches on a harness.
 */

/** A server as an entry needs it: its transport and what that takes, without its name and origin. */
export type ServerShape = Pick<PlannedStdioServer, 'transport' | 'command' | 'args' | 'env'> | Pick<PlannedHttpServer, 'transport' | 'url' | 'bearerTokenEnv' | 'headers'>

type Entry = { [key: string]: JsonValue }

/** Our own server: the launcher of the bundled server script, and the config's variables under their own names. */
export function ourServer(plan: Plan): ServerShape {
  const { command, args } = mcpServerCommand(plan)
  return { transport: 'stdio', command, args, env: Object.fromEntries(plan.env.map((name) => [name, { env: name }])) }
}

/**
 * The entry of `server` in a configuration of `format`; `extra` keys go after the command (VS Code's
 * `cwd`). A reference the format cannot write never gets here: compile leaves such a server out of the
 * harness (`mcpServerLeftOut`).
 */
export function mcpServerEntry(format: McpEntryFormat, server: ServerShape, extra: Entry = {}): Entry {
  const { reference } = format
  const text = (value: PlannedMcpValue): string => (typeof value === 'string' ? value : reference === 'codex' ? value.env : reference(value.env))
  if (server.transport === 'stdio') {
    const { type, commandList, envKey } = format.stdio
    const args = server.args.map(text)
    const command: Entry = commandList ? { command: [server.command, ...args] } : { command: server.command, ...(args.length > 0 && { args }) }
    const env = Object.entries(server.env).filter(([key, value]) => !(format.inheritsEnv && typeof value === 'object' && value.env === key))
    const literal = env.filter(([, value]) => reference !== 'codex' || typeof value === 'string')
    // Codex passes a variable to a server only by name, under its own name (`env_vars`).
    const byName = reference === 'codex' ? env.flatMap(([, value]) => (typeof value === 'object' ? [value.env] : [])) : []
    return {
      ...(type !== undefined && { type }),
      ...command,
      ...extra,
      ...(literal.length > 0 && { [envKey]: Object.fromEntries(literal.map(([key, value]) => [key, text(value)])) }),
      ...(byName.length > 0 && { env_vars: byName }),
    }
  }
  const { type, urlKey } = format.http
  const headers = Object.entries(server.headers)
  if (reference === 'codex') {
    const literal = headers.filter(([, value]) => typeof value === 'string')
    const byName = headers.flatMap(([key, value]) => (typeof value === 'object' ? [[key, value.env]] : []))
    return {
      [urlKey]: server.url,
      ...(server.bearerTokenEnv !== undefined && { bearer_token_env_var: server.bearerTokenEnv }),
      ...(literal.length > 0 && { http_headers: Object.fromEntries(literal) }),
      ...(byName.length > 0 && { env_http_headers: Object.fromEntries(byName) }),
      ...extra,
    }
  }
  const all = [...(server.bearerTokenEnv === undefined ? [] : [['Authorization', `Bearer ${reference(server.bearerTokenEnv)}`]]), ...headers.map(([key, value]) => [key, text(value)])]
  return { ...(type !== undefined && { type }), [urlKey]: server.url, ...(all.length > 0 && { headers: Object.fromEntries(all) }), ...extra }
}

/** A server someone else wrote as an entry of `format`, with the config's approval rules where the entry holds them (Codex). */
export function thirdPartyEntry(format: McpEntryFormat, server: PlannedMcpServer): Entry {
  const entry = mcpServerEntry(format, server)
  const { approvals } = format
  if (!approvals || !server.approval) return entry
  const { all, tools = {} } = server.approval
  if (all) entry[approvals.server] = approvals.modes[all]
  for (const [tool, approval] of Object.entries(tools)) setPath(entry, approvals.tool(tool), approvals.modes[approval])
  return entry
}

/** Sets the value at `path` below `entry`, making the objects on the way. */
function setPath(entry: Entry, path: readonly string[], value: JsonValue): void {
  let at = entry
  for (const key of path.slice(0, -1)) {
    const next = at[key]
    at = (at[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}) as Entry
  }
  at[path.at(-1)!] = value
}

/**
 * The servers someone else wrote, merged into each selected harness's MCP configuration files beside
 * ours (src/emit/index.ts combines the merges of one file): every server the harness can carry there,
 * one entry per file however many harnesses read it (`.mcp.json`).
 */
export function emitMcpServers(plan: Plan): MergeFile[] {
  if ((plan.mcpServers ?? []).length === 0) return []
  const files = new Map<string, MergeFile>()
  for (const id of plan.harnesses) {
    const carried = configuredServers(plan, id)
    for (const config of harness(id).mcp.files ?? []) {
      let file = files.get(config.path)
      if (!file) files.set(config.path, (file = { kind: 'merge', path: config.path, format: config.format, entries: [] }))
      if (config.strictJsonReader) file.strictJsonReader = config.strictJsonReader
      for (const server of carried) {
        const keyPath = [...config.key, server.name]
        if (!file.entries.some((entry) => entry.keyPath.join('\0') === keyPath.join('\0'))) file.entries.push({ keyPath, value: thirdPartyEntry(config.entry, server), renamed: `the MCP server "${server.name}" (defineMcpServer at ${server.source.file}:${server.source.line})` })
      }
    }
  }
  return [...files.values()].filter((file) => file.entries.length > 0)
}

/**
 * The servers someone else wrote as entries of a plugin format's MCP servers, for the `harnesses` that
 * install the folder in that format: each server every one of them carries, in the entry format of the
 * first one's configuration (the readers of one plugin format share it). None for a harness without
 * MCP configuration files (route `bridge`).
 */
export function pluginServerEntries(plan: Plan, harnesses: readonly Harness[]): Entry {
  const format = harnesses.map((id) => harness(id).mcp.files?.[0]?.entry).find((entry) => entry !== undefined)
  if (!format || harnesses.some((id) => harness(id).mcp.route !== 'config')) return {}
  const carried = configuredServers(plan, harnesses[0]!).filter((server) => harnesses.every((id) => configuredServers(plan, id).includes(server)))
  return Object.fromEntries(carried.map((server) => [server.name, thirdPartyEntry(format, server)]))
}
