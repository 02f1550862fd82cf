import { harness } from '../../compile/harnesses/index.js'
import type { Plan } from '../../compile/plan.js'
import { instructionPlace } from '../../compile/rule-places.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { mcpServerScript } from '../mcp-launcher.js'
import { hasNativeForm, nativeToolName } from '../codegen/prompt-docs.js'
import { jsonDocument, tomlDocument } from '../codegen/escape.js'
import { commandsAs } from '../commands.js'
import { geminiAgentFile } from '../gemini.js'
import { pluginHookGroups } from '../hooks.js'
import { pluginServerEntries } from '../mcp-servers.js'
import { serverEnv, servesMcp } from '../mcp-tools.js'
import type { OutputFile } from '../types.js'
import type { PluginFormatEmitter } from './types.js'

/**
 * The variable Gemini CLI 0.61 replaces by the extension's folder in `gemini-extension.json` and in
 * `hooks/hooks.json` (`hydrateString`, with `${/}` for the path separator), before anything runs.
 */
const ROOT = '${extensionPath}'

/** Within Gemini's extension tier (its own, below the workspace's, the user's and the admin's), the rank of our rules: they are the only ones an extension of ours adds. */
const POLICY_PRIORITY = 500

/**
 * A Gemini CLI extension (`gemini extensions install <dir>`), which Qwen Code installs too, by
 * converting it: `gemini-extension.json` with our MCP server, and Gemini's fixed folders beside it,
 * `agents/`, `commands/` (TOML), `hooks/hooks.json` and `policies/` (its `skills/` is the folder's
 * root skills, written once for every format that reads them: see index.ts). The server starts in
 * the folder the CLI runs in (no `cwd`), which is the user's project: tools see it as `ctx.cwd`.
 */
export const emitGeminiExtension: PluginFormatEmitter = (plan, harnesses) => {
  const { name, version, description } = plan.plugin
  const servers = { ...(harnesses.some((id) => servesMcp(plan, id)) && { [plan.serverName]: serverEntry(plan) }), ...pluginServerEntries(plan, harnesses) }
  const manifest: { [key: string]: JsonValue } = { name, version, description, ...(Object.keys(servers).length > 0 && { mcpServers: servers }), ...contextFile(plan, harnesses.includes('gemini') ? 'gemini' : 'qwen') }
  const files: OutputFile[] = [{ kind: 'owned', path: 'gemini-extension.json', content: jsonDocument(manifest) }]
  for (const agent of plan.agents) files.push({ kind: 'owned', path: `agents/${agent.name}.md`, content: geminiAgentFile(plan, agent) })
  const commands = harness('gemini').commands.find((file) => file.format === 'toml')!
  files.push(...commandsAs(plan, { ...commands, path: (command) => `commands/${command}.toml` }, harnesses))
  // Claude Code runs this file too (it reads a plugin's hooks/hooks.json whatever its manifest says), where
  // an event name is also its own (SessionStart): there, with CLAUDE_PLUGIN_ROOT set, the command does nothing.
  const hooks = pluginHookGroups(plan, 'gemini', ROOT, { othersRoot: 'CLAUDE_PLUGIN_ROOT' })
  if (Object.keys(hooks).length > 0) files.push({ kind: 'owned', path: 'hooks/hooks.json', content: jsonDocument({ hooks }) })
  const policies = askPolicies(plan)
  if (policies) files.push({ kind: 'owned', path: 'policies/approvals.toml', content: policies })
  if (harnesses.includes('qwen')) files.push({ kind: 'owned', path: 'qwen-extension.json', content: jsonDocument(qwenManifest(plan, manifest)) })
  return { files }
}

/**
 * Qwen Code's manifest beside Gemini's. Without it Qwen converts the Gemini extension on install and
 * reads `hooks/hooks.json`, whose events and `${extensionPath}` it does not know, so our hooks would
 * never run; with it Qwen takes the folder as it is (the same fixed folders, TOML commands included)
 * and its hooks from here, under its own event names, `${extensionPath}` filled as in the rest of
 * this file.
 */
function qwenManifest(plan: Plan, gemini: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
  const hooks = pluginHookGroups(plan, 'qwen', ROOT)
  return { ...gemini, ...contextFile(plan, 'qwen'), ...(Object.keys(hooks).length > 0 ? { hooks } : {}) }
}

/** The manifest's `contextFileName`, naming the file of the always-on rules (src/emit/rules.ts) where `id` reads one. */
function contextFile(plan: Plan, id: Harness): { contextFileName?: string } {
  const file = instructionPlace(id, 'plugin')?.file
  return file && (plan.rules ?? []).some((rule) => rule.paths === undefined) ? { contextFileName: file } : {}
}

/**
 * The server entry: the bundled server started by path from the extension's folder, and the
 * config's variables forwarded by name. Gemini fills `${VAR}` from its own environment when it
 * loads the extension (`resolveEnvVarsInObject`), and passes a server only a cleaned environment
 * (no `*TOKEN*`, `*KEY*`...), so each variable is listed.
 */
function serverEntry(plan: Plan): { [key: string]: JsonValue } {
  const script = `${ROOT}\${/}${mcpServerScript(plan).split('/').join('${/}')}`
  return { command: 'node', args: [script], ...serverEnv(plan) }
}

/**
 * The config's `ask` rules as a policy file of the extension: Gemini asks before each call of those
 * tools. Its `allow` rules have no place here: 0.61 drops every ALLOW rule an extension brings
 * (`loadExtensionPolicies`, "Ignoring this rule for security"), so the user allows those tools.
 */
function askPolicies(plan: Plan): string | undefined {
  const asked = plan.tools.filter((tool) => tool.approval === 'ask' && hasNativeForm(plan, tool, 'gemini')).map((tool) => nativeToolName(plan, 'gemini', tool.name))
  if (asked.length === 0) return undefined
  return tomlDocument({ rule: [{ toolName: asked, decision: 'ask_user', priority: POLICY_PRIORITY }] })
}
