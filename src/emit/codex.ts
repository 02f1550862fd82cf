import { codex } from '../compile/harnesses/codex.js'
import type { Plan, PlannedAgent, ToolApproval } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { CODEX_ENTRY } from '../compile/harnesses/mcp-formats.js'
import { mcpServerEntry, ourServer } from './mcp-servers.js'
import { hasNativeForm, renderAgentPrompt } from './codegen/prompt-docs.js'
import type { MergeEntry, OutputFile } from './types.js'

/** Codex waits this long for the server to answer `initialize` and `tools/list` (its default, 10 s, is tight for a cold `node`). */
const STARTUP_TIMEOUT_SEC = 30
/** Above the server's own per-call timeout (60 s), so a slow tool's `isError` message reaches the model before Codex gives up. */
const TOOL_TIMEOUT_SEC = 75

/**
 * Codex: `.codex/agents/<agent>.toml` per agent, merged key by key so a user's own keys, tables and
 * comments in the file survive, and (unless `plan.codexConfig` is false) the `[mcp_servers.<server>]`
 * block, serving every JSON tool, merged into the project's `.codex/config.toml`.
 *
 * That block is the one route to our tools for every Codex agent. Codex 0.171 applies a role file as
 * a config layer for the spawned agent's model and instructions, but gives the agent the MCP tools
 * of the session: an `[mcp_servers]` block in a role file is never started, and its `enabled_tools`
 * does not narrow the session's server (codex-rs `agent/role.rs`, `codex-mcp/src/client_pool.rs`;
 * proven with the real CLI). So Codex does not scope tools per agent; each role's instructions
 * document only its own tools, and compile warns (`tools-not-scoped`).
 */
export function emitCodex(plan: Plan): OutputFile[] {
  const files: OutputFile[] = plan.agents.map((agent) => ({
    kind: 'merge',
    path: codex.agentFile(agent.name),
    format: 'toml',
    entries: agentEntries(plan, agent),
  }))
  const served = plan.tools.filter((tool) => hasNativeForm(plan, tool, 'codex')).map((tool) => tool.name)
  if (plan.codexConfig !== false && served.length > 0) {
    files.push({
      kind: 'merge',
      path: '.codex/config.toml',
      format: 'toml',
      entries: [{ keyPath: ['mcp_servers', plan.serverName], value: mcpServerBlock(plan, served) }],
    })
  }
  return files
}

function agentEntries(plan: Plan, agent: PlannedAgent): MergeEntry[] {
  // Compile has checked these keys against the ones Codex accepts in a role file (`codex-key-unknown`).
  const extra = Object.entries(agent.harness.codex ?? {})
  const entries: MergeEntry[] = [
    { keyPath: ['name'], value: agent.name },
    { keyPath: ['description'], value: agent.description },
    { keyPath: ['developer_instructions'], value: renderAgentPrompt(plan, agent, 'codex') },
  ]
  if (agent.model.codex !== undefined) entries.push({ keyPath: ['model'], value: agent.model.codex })
  for (const [key, value] of extra) entries.push({ keyPath: [key], value })
  return entries
}

/**
 * The `[mcp_servers.<server>]` table. It has no `cwd` on purpose. Codex 0.171 starts a thread's
 * stdio servers in the thread's working folder (the project, or the subfolder Codex was started
 * in), and the launcher walks up from there to the target folder. A relative `cwd` would be worse:
 * Codex resolves it against its own process folder, which for an app-server run by an editor is
 * not the project. (Outside any thread, `mcpServerStatus/list` on user-level config starts servers
 * in `$CODEX_HOME`, where nothing can find the project without an absolute path.) Codex passes
 * servers only a fixed set of variables (HOME, PATH, ...): `env_vars` forwards the config's
 * declared names from Codex's environment, by name.
 */
export function mcpServerBlock(plan: Plan, enabledTools: string[]): { [key: string]: JsonValue } {
  const decided = plan.tools.filter((tool) => tool.approval !== undefined && enabledTools.includes(tool.name))
  return {
    ...mcpServerEntry(CODEX_ENTRY, ourServer(plan)),
    enabled_tools: enabledTools,
    startup_timeout_sec: STARTUP_TIMEOUT_SEC,
    tool_timeout_sec: TOOL_TIMEOUT_SEC,
    ...(decided.length > 0 ? { tools: Object.fromEntries(decided.map((tool) => [tool.name, { approval_mode: CODEX_APPROVAL[tool.approval!] }])) } : {}),
  }
}

/**
 * Codex's approval mode for a tool the config's approval rules decide: `approve` runs it unasked,
 * `prompt` always asks. Other tools keep Codex's default, `auto`, which asks unless the tool's
 * annotations say it only reads (or is neither destructive nor open-world).
 */
const CODEX_APPROVAL: Record<ToolApproval, string> = { allow: 'approve', ask: 'prompt' }
