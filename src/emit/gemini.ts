import { harness } from '../compile/harnesses/index.js'
import type { Plan, PlannedAgent } from '../compile/plan.js'
import type { Harness, JsonValue } from '../define/types.js'
import { GEMINI_ENTRY } from '../compile/harnesses/mcp-formats.js'
import { mcpServerEntry, ourServer } from './mcp-servers.js'
import { agentAllowList } from './allow-list.js'
import { agentToolFields } from './mcp-scope.js'
import { markdownWithFrontmatter } from './codegen/escape.js'
import { renderAgentPrompt } from './codegen/prompt-docs.js'
import { type PermissionLists, permissionItems, servesMcp } from './mcp-tools.js'
import type { OutputFile } from './types.js'

/**
 * The server entry of `.gemini/settings.json` (and Qwen Code's `.qwen/settings.json`): only keys of
 * the closed `MCPServerConfig` schema. No `cwd`: the server starts in the folder the CLI was launched
 * in, which is the project (both read project settings from the launch folder only), and the launcher
 * walks up from there. The CLI passes a server only a cleaned environment (no `*TOKEN*`, `*KEY*`...),
 * so the config's variables are listed; `${VAR}` is expanded from the CLI's environment.
 */
export function settingsServerEntry(plan: Plan): { [key: string]: JsonValue } {
  return mcpServerEntry(GEMINI_ENTRY, ourServer(plan))
}

/** Gemini CLI or a fork of it: the harness, the folder of its project settings and agents, and where those settings keep approval rules. */
export interface GeminiFamily {
  harness: Extract<Harness, 'gemini' | 'qwen'>
  folder: string
  permissionLists: PermissionLists
}

/**
 * Gemini CLI: our server merged into `.gemini/settings.json` (JSONC; the user's comments and keys
 * stay), and one `.gemini/agents/<agent>.md` per agent whose `tools` name its MCP tools as the model
 * sees them, `mcp_<server>_<tool>`.
 */
export function emitGemini(plan: Plan): OutputFile[] {
  return emitGeminiFamily(plan, GEMINI_FAMILY)
}

// `tools.allowed` (runs unasked) and `tools.confirmationRequired` (always asks), which Gemini's policy
// engine reads from the project's settings in a trusted folder. Not `.gemini/policies/`: 0.61 has
// workspace policy files switched off in its code. The nested keys also in a file still in Gemini's
// first layout (top-level `coreTools`, `autoAccept`, ...): 0.61 no longer migrates that layout and
// reads none of its keys, with our entries or without (test/harness/gemini-legacy-settings.test.ts).
const GEMINI_FAMILY: GeminiFamily = { harness: 'gemini', folder: '.gemini', permissionLists: { allow: ['tools', 'allowed'], ask: ['tools', 'confirmationRequired'] } }

export function emitGeminiFamily(plan: Plan, family: GeminiFamily): OutputFile[] {
  const files: OutputFile[] = []
  const server = servesMcp(plan, family.harness) ? [{ keyPath: ['mcpServers', plan.serverName], value: settingsServerEntry(plan) }] : []
  const entries = [...server, ...permissionItems(plan, family.harness, family.permissionLists)]
  if (entries.length > 0) files.push({ kind: 'merge', path: `${family.folder}/settings.json`, format: 'json', entries })
  const path = harness(family.harness).agentFile!
  for (const agent of plan.agents) files.push({ kind: 'owned', path: path(agent.name), content: agentFile(plan, agent, family) })
  return files
}

/** A Gemini CLI agent file's text (frontmatter and prompt), wherever it goes: a project's `.gemini/agents/`, an extension's `agents/`. */
export function geminiAgentFile(plan: Plan, agent: PlannedAgent): string {
  return agentFile(plan, agent, GEMINI_FAMILY)
}

function agentFile(plan: Plan, agent: PlannedAgent, family: GeminiFamily): string {
  const tools = agentAllowList(plan, agent, family.harness, 'run_shell_command')
  const frontmatter: { [key: string]: JsonValue } = {
    name: agent.name,
    description: agent.description,
    ...agentToolFields(plan, agent, family.harness, tools),
    ...(agent.model[family.harness] !== undefined ? { model: agent.model[family.harness]! } : {}),
    // Checked in compile (Gemini's schema is closed; Qwen's drops what it does not know).
    ...(agent.harness[family.harness] ?? {}),
  }
  return markdownWithFrontmatter(frontmatter, renderAgentPrompt(plan, agent, family.harness))
}
