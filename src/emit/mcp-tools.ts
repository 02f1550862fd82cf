/* What the emitters of MCP harnesses share: which tools the server gives each agent. */
import type { Plan, PlannedAgent, PlannedTool } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { MCP_JSON_ENTRY } from '../compile/harnesses/mcp-formats.js'
import { serverRules } from './mcp-scope.js'
import { mcpServerEntry, ourServer } from './mcp-servers.js'
import { hasNativeForm, nativeToolName, toolsByName } from './codegen/prompt-docs.js'
import { ARRAY_ITEM, type MergeEntry, type MergeFile } from './types.js'

/** True when the plan serves tools over MCP to this harness (the bundler then writes the server script). */
export function servesMcp(plan: Plan, harness: Harness): boolean {
  return plan.tools.some((tool) => hasNativeForm(plan, tool, harness))
}

/**
 * The agent's tools it calls through the MCP server: those with a native form whose documented
 * format is not bash-only (a `bash` agent is told to run the script, so it gets no MCP tool).
 */
export function agentMcpTools(plan: Plan, agent: PlannedAgent, harness: Harness): PlannedTool[] {
  return agentTools(plan, agent).filter((tool) => hasNativeForm(plan, tool, harness) && agent.toolFormats[tool.name] !== 'bash')
}

/** The agent's tools, in its order. */
export function agentTools(plan: Plan, agent: PlannedAgent): PlannedTool[] {
  const byName = toolsByName(plan.tools)
  return agent.tools.map((name) => byName.get(name)).filter((tool): tool is PlannedTool => tool !== undefined)
}

/**
 * Our entry in the project's `.mcp.json`, read by Claude Code and by the Copilot CLI (the Claude
 * emitter writes it when Claude is selected, the Copilot one otherwise). `${VAR}` is expanded by
 * either from its own environment when it starts the server, so only the variable's name is
 * written down, never its value. Copilot skips the whole file when it has a comment: with Copilot
 * selected, the write step warns about one.
 */
export function mcpJsonFile(plan: Plan): MergeFile {
  return {
    kind: 'merge',
    path: '.mcp.json',
    format: 'json',
    entries: [{ keyPath: ['mcpServers', plan.serverName], value: mcpServerEntry(MCP_JSON_ENTRY, ourServer(plan)) }],
    ...(plan.harnesses.includes('copilot') ? { strictJsonReader: 'the GitHub Copilot CLI' } : {}),
  }
}

/**
 * The config's variables as a server entry's `env`, each `${VAR}`, which the harness fills from its own
 * environment when it starts the server (only the name is written down, never the value); nothing
 * without variables. For `.mcp.json`, Gemini CLI's and Qwen Code's settings, and the plugins' manifests.
 */
export function serverEnv(plan: Plan): { [key: string]: JsonValue } {
  return plan.env.length > 0 ? { env: Object.fromEntries(plan.env.map((name) => [name, `\${${name}}`])) } : {}
}

/** Where a harness's settings keep the tools that run without asking and those that always ask. */
export interface PermissionLists {
  allow: string[]
  ask: string[]
}

/** Claude Code's `.claude/settings.json` and Qwen Code's `.qwen/settings.json`. */
export const PERMISSIONS_LISTS: PermissionLists = { allow: ['permissions', 'allow'], ask: ['permissions', 'ask'] }

/**
 * The config's approval rules as items of the harness's permission lists (`permissions.allow` and
 * `permissions.ask` unless `lists` says otherwise), each of our tools named as its model sees it, and
 * each MCP server (or one tool of it) as the harness's rules name it: only those items are ours, every
 * other rule stays the user's.
 */
export function permissionItems(plan: Plan, harness: Harness, lists: PermissionLists = PERMISSIONS_LISTS): MergeEntry[] {
  const ours = plan.tools
    .filter((tool) => tool.approval !== undefined && hasNativeForm(plan, tool, harness))
    .map((tool) => ({ name: nativeToolName(plan, harness, tool.name), approval: tool.approval! }))
  return [...ours, ...serverRules(plan, harness)].map(({ name, approval }) => ({ keyPath: [...lists[approval], ARRAY_ITEM, name], value: name }))
}
