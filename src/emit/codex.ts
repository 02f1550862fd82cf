import type { Plan, PlannedAgent } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { type Diagnostic, OacError } from '../diagnostics.js'
import { mcpServerCommand } from '../runtime/mcp-launcher.js'
import { agentMcpTools } from './claude.js'
import { hasNativeForm, renderAgentPrompt } from './codegen/prompt-docs.js'
import type { MergeEntry, OutputFile } from './types.js'

/**
 * Keys `harness.codex` may add to an agent role file. Codex rejects unknown keys in these files
 * (serde `deny_unknown_fields`: the whole role is dropped with a config warning), so only keys
 * Codex 0.171 accepts there pass; each was checked against the real codex app-server.
 * `name`, `description`, `developer_instructions`, `model` and `mcp_servers` are written from the
 * definition; a user's own extra MCP servers can go straight into the file, which we merge into.
 */
export const CODEX_AGENT_KEYS: readonly string[] = [
  'nickname_candidates',
  'model_provider',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'model_context_window',
  'model_auto_compact_token_limit',
  'review_model',
  'service_tier',
  'approval_policy',
  'sandbox_mode',
  'sandbox_workspace_write',
  'shell_environment_policy',
  'web_search',
  'tools',
  'features',
  'skills',
  'compact_prompt',
]

/** Codex waits this long for the server to answer `initialize` and `tools/list` (its default, 10 s, is tight for a cold `node`). */
const STARTUP_TIMEOUT_SEC = 30
/** Above the server's own per-call timeout (60 s), so a slow tool's `isError` message reaches the model before Codex gives up. */
const TOOL_TIMEOUT_SEC = 75

/**
 * Codex: `.codex/agents/<agent>.toml` per agent, merged key by key so a user's own keys, tables and
 * comments in the file survive. An agent with MCP tools gets an `[mcp_servers.<server>]` block
 * allowing just its tools. With `plan.codexConfig`, the project's `.codex/config.toml` gets the
 * block too (every JSON tool), for Codex's main agent.
 */
export function emitCodex(plan: Plan): OutputFile[] {
  const files: OutputFile[] = plan.agents.map((agent) => ({
    kind: 'merge',
    path: `.codex/agents/${agent.name}.toml`,
    format: 'toml',
    entries: agentEntries(plan, agent),
  }))
  const served = plan.tools.filter((tool) => hasNativeForm(plan, tool, 'codex')).map((tool) => tool.name)
  if (plan.codexConfig && served.length > 0) {
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
  const extra = checkedExtraKeys(agent)
  const entries: MergeEntry[] = [
    { keyPath: ['name'], value: agent.name },
    { keyPath: ['description'], value: agent.description },
    { keyPath: ['developer_instructions'], value: renderAgentPrompt(plan, agent, 'codex') },
  ]
  if (agent.model.codex !== undefined) entries.push({ keyPath: ['model'], value: agent.model.codex })
  for (const [key, value] of extra) entries.push({ keyPath: [key], value })
  const tools = agentMcpTools(plan, agent, 'codex').map((tool) => tool.name)
  if (tools.length > 0) entries.push({ keyPath: ['mcp_servers', plan.serverName], value: mcpServerBlock(plan, tools) })
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
  return {
    ...mcpServerCommand(plan.serverName),
    ...(plan.env.length > 0 ? { env_vars: [...plan.env] } : {}),
    enabled_tools: enabledTools,
    startup_timeout_sec: STARTUP_TIMEOUT_SEC,
    tool_timeout_sec: TOOL_TIMEOUT_SEC,
  }
}

function checkedExtraKeys(agent: PlannedAgent): [string, JsonValue][] {
  const extra = Object.entries(agent.harness.codex ?? {})
  const diagnostics: Diagnostic[] = []
  for (const [key, value] of extra) {
    if (!CODEX_AGENT_KEYS.includes(key)) {
      diagnostics.push({
        severity: 'error',
        code: 'codex-key-unknown',
        message: `Agent "${agent.name}" sets \`harness.codex.${key}\`, which ${ownedBy(key) ?? 'Codex does not accept in an agent file (it would drop the whole agent)'}.`,
        fix: ownedBy(key) ? `Remove \`${key}\` from \`harness.codex\`.` : `Use one of: ${CODEX_AGENT_KEYS.join(', ')}.`,
        ...agent.source,
      })
    } else if (containsNull(value)) {
      diagnostics.push({
        severity: 'error',
        code: 'codex-value-null',
        message: `Agent "${agent.name}" sets \`harness.codex.${key}\` to a value containing null, which TOML cannot express.`,
        fix: `Leave the key (or the null entry) out instead.`,
        ...agent.source,
      })
    }
  }
  if (diagnostics.length > 0) throw new OacError(diagnostics)
  return extra
}

function ownedBy(key: string): string | undefined {
  const owners: Record<string, string> = {
    name: 'unplugin-oac writes from the agent `name`',
    description: 'unplugin-oac writes from the agent `description`',
    developer_instructions: 'unplugin-oac writes from the agent `prompt` and its tool docs',
    model: 'unplugin-oac writes from the agent `model` (or the config `models`)',
    mcp_servers: 'unplugin-oac writes for the agent `tools` (add other servers to the file by hand: it is merged, not overwritten)',
  }
  return owners[key]
}

function containsNull(value: JsonValue): boolean {
  if (value === null) return true
  if (Array.isArray(value)) return value.some(containsNull)
  if (typeof value === 'object') return Object.values(value).some(containsNull)
  return false
}
