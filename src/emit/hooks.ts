import { harness } from '../compile/harnesses/index.js'
import type { CommandHookRegistration } from '../compile/harnesses/types.js'
import type { Plan, PlannedHook } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { Harness, JsonValue } from '../define/types.js'
import { jsonDocument, shellWord } from './codegen/escape.js'
import { hookPluginFile } from './hook-plugins.js'
import { listItemPath, type MergeEntry, type OutputFile, type OwnedFile } from './types.js'

/*
 * Where each harness finds our hooks: a registration per hook in its settings (a command with JSON
 * on stdin: Claude Code, Codex, Gemini CLI, Qwen Code, Copilot), or one generated plugin that runs them
 * in its own process (opencode, Kilo, pi, oh-my-pi). What differs by harness is in its description's
 * `hooks` (src/compile/harnesses/).
 */

/** How much longer than a hook's own timeout its harness waits: the script answers first, with the hook's error as its decision. */
export const HARNESS_TIMEOUT_MARGIN_MS = 5_000

/** Every selected harness's hook files: registrations merged into its settings, its own hooks file, or its plugin. */
export function emitHooks(plan: Plan): OutputFile[] {
  return plan.harnesses.flatMap((id): OutputFile[] => {
    const support = harness(id).hooks
    const hooks = registeredHooks(plan, id)
    if (hooks.length === 0) return []
    const registration = support.registration
    if (registration.kind === 'plugin') return [hookPluginFile(plan, id, hooks, registration.file(plan.serverName))]
    return [commandRegistrations(plan, id, hooks, registration)]
  })
}

/** The plan's hooks of the events harness `id` has. */
export function hooksOfEvents(plan: Plan, id: Harness): PlannedHook[] {
  const { events } = harness(id).hooks
  return plan.hooks.filter((hook) => events[hook.on] !== undefined)
}

/** The hooks `id` registers in its settings or plugin: those of events it has; a harness that scopes hooks to agents gets an agent's own hooks in its agent file (see agentHookGroups). */
export function registeredHooks(plan: Plan, id: Harness): PlannedHook[] {
  const { scopesToAgents } = harness(id).hooks
  return hooksOfEvents(plan, id).filter((hook) => !(hook.agents && scopesToAgents))
}

/** The names a hook of `id` sees for the tools `hook` watches, as one anchored pattern; undefined for every tool (or an event about none). */
export function toolMatcher(plan: Plan, id: Harness, hook: PlannedHook): string | undefined {
  if (!hook.tools) return undefined
  const { hooks } = harness(id)
  const names = [...hook.tools.ours.map((tool) => hooks.toolName(targetOf(plan).shownServerName(id), tool)), ...hook.tools.builtins.flatMap((name) => hooks.builtins[name] ?? [])]
  // Anchored: the harnesses test a matcher as an unanchored regular expression (`add` would match `add_note`).
  return `^(?:${[...new Set(names)].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`
}

/**
 * The command a harness runs for the hook: its script, found from the project folder the harness names
 * in the command (quoted), or, where it names none (Codex runs hooks in the session's folder, perhaps a
 * subfolder), by walking up from the working directory as the MCP server's launcher does; installed in a
 * user's home, from the home folder. A script that cannot be found fails a beforeTool hook closed (exit
 * code 2 blocks in every command harness).
 */
export function hookCommand(plan: Plan, id: Harness, hook: PlannedHook, registration: CommandHookRegistration): string {
  const missing = hook.on === 'beforeTool' && hook.onError === 'block' ? 2 : 0
  const { scriptLookup } = targetOf(plan)
  if (scriptLookup) {
    // Where the target says where its scripts are (a home), the script is found there, whatever folder the session runs in.
    const found = `${scriptLookup(hook.script, missing)} process.argv.splice(1, 0, script); import(require("node:url").pathToFileURL(script).href)`
    return `node -e ${shellWord(found)} -- --harness ${id}`
  }
  if (registration.othersRoot !== undefined) {
    // Another harness that runs this file too sets `othersRoot`: the command then does nothing there.
    const unlessOther = `process.env.${registration.othersRoot} || import(require("node:url").pathToFileURL(process.argv[1]).href)`
    return `node -e ${shellWord(unlessOther)} "${registration.projectDir}/${hook.script}" --harness ${id}`
  }
  if (registration.projectDir !== undefined) return `node "${registration.projectDir}/${hook.script}" --harness ${id}`
  const walker = [
    `const { existsSync } = require("node:fs"), { dirname, join } = require("node:path"), { pathToFileURL } = require("node:url");`,
    `const script = ${JSON.stringify(hook.script)}; let dir = process.cwd();`,
    `while (!existsSync(join(dir, script))) { if (dirname(dir) === dir) { console.error(script + " not found in " + process.cwd() + " or any folder above it: run the agent build first."); process.exit(${missing}) } dir = dirname(dir) }`,
    `process.argv.splice(1, 0, join(dir, script)); import(pathToFileURL(process.argv[1]).href)`,
  ].join(' ')
  return `node -e ${shellWord(walker)} -- --harness ${id}`
}

function timeoutValue(hook: PlannedHook, registration: CommandHookRegistration): number {
  const ms = hook.timeoutMs + HARNESS_TIMEOUT_MARGIN_MS
  return registration.timeout.unit === 'ms' ? ms : Math.ceil(ms / 1000)
}

function commandRegistrations(plan: Plan, id: Harness, hooks: readonly PlannedHook[], registration: CommandHookRegistration): OutputFile {
  const { events } = harness(id).hooks
  const path = registration.file(plan.serverName)
  if (registration.shape === 'copilot') {
    // Copilot's own file, ours whole: one entry per hook, its matcher beside the command.
    const byEvent: { [event: string]: JsonValue[] } = {}
    for (const hook of hooks) {
      const matcher = toolMatcher(plan, id, hook)
      const entry = { type: 'command', bash: hookCommand(plan, id, hook, registration), [registration.timeout.key]: timeoutValue(hook, registration), ...(matcher && { matcher }) }
      ;(byEvent[events[hook.on]!] ??= []).push(entry)
    }
    return { kind: 'owned', path, content: jsonDocument({ version: 1, hooks: byEvent }) }
  }
  // A matcher group per hook, an item of the event's list: the user's groups and every other byte stay.
  const entries = hooks.map((hook): MergeEntry => {
    const group = matcherGroup(plan, id, hook, registration)
    return { keyPath: listItemPath(['hooks', events[hook.on]!], group), value: group }
  })
  return { kind: 'merge', path, format: 'json', entries }
}

/**
 * The hooks of the settings' shape (matcher groups by event) that harness `id` runs from a plugin, each
 * command finding its script from `root`, the variable the harness sets to the plugin's folder
 * (`${CLAUDE_PLUGIN_ROOT}`, ...). Agent-scoped hooks too: a plugin's hooks file is not an agent's.
 * `othersRoot`: the variable another harness that reads the same file sets (see CommandHookRegistration).
 */
export function pluginHookGroups(plan: Plan, id: Harness, root: string, options: { othersRoot?: string } = {}): { [event: string]: JsonValue[] } {
  const support = harness(id).hooks
  if (support.registration.kind !== 'command') return {}
  const registration: CommandHookRegistration = { ...support.registration, projectDir: root, ...(options.othersRoot && { othersRoot: options.othersRoot }) }
  return groupsByEvent(plan, id, hooksOfEvents(plan, id), registration)
}

/**
 * The hooks file of its own shape that harness `id` runs from a plugin (Copilot's `version: 1` file),
 * at `path` in the plugin, each command finding its script from `root`; undefined where the harness's
 * hooks are not of that shape, or none of the plan's hooks has an event there.
 */
export function pluginHooksFile(plan: Plan, id: Harness, root: string, path: string): OutputFile | undefined {
  const support = harness(id).hooks
  if (support.registration.kind !== 'command' || support.registration.shape !== 'copilot') return undefined
  const hooks = hooksOfEvents(plan, id)
  if (hooks.length === 0) return undefined
  return commandRegistrations(plan, id, hooks, { ...support.registration, projectDir: root, file: () => path })
}

/**
 * The extension that runs the plan's hooks in `id`'s process from a plugin folder (pi's, oh-my-pi's), at
 * `<folder>/extensions/<server>-hooks.ts`; undefined where `id` runs none of them that way.
 */
export function pluginHookExtension(plan: Plan, id: Harness, folder: string): OwnedFile | undefined {
  const hooks = hooksOfEvents(plan, id)
  if (hooks.length === 0 || harness(id).hooks.registration.kind !== 'plugin') return undefined
  return hookPluginFile(plan, id, hooks, `${folder}/extensions/${plan.serverName}-hooks.ts`)
}

/** A hook as a matcher group of the settings' shape: its matcher, and the command with its timeout. */
function matcherGroup(plan: Plan, id: Harness, hook: PlannedHook, registration: CommandHookRegistration): { [key: string]: JsonValue } {
  const matcher = toolMatcher(plan, id, hook)
  const handler = {
    type: 'command',
    command: hookCommand(plan, id, hook, registration),
    [registration.timeout.key]: timeoutValue(hook, registration),
    ...(registration.named && { name: hook.name, description: hook.description }),
  }
  return { ...(matcher && { matcher }), hooks: [handler] }
}

/**
 * The hooks that run for `agent` alone, by event, as matcher groups, for the agent file of a harness
 * that scopes hooks to agents (Claude Code's frontmatter `hooks`, of its settings' shape); empty elsewhere.
 */
export function agentHookGroups(plan: Plan, id: Harness, agent: string): { [event: string]: JsonValue[] } {
  const { scopesToAgents, registration } = harness(id).hooks
  if (!scopesToAgents || registration.kind !== 'command') return {}
  return groupsByEvent(plan, id, hooksOfEvents(plan, id).filter((hook) => hook.agents?.includes(agent)), registration)
}

/** `hooks` (each of an event `id` has) as matcher groups of the settings' shape, by the harness's event name. */
function groupsByEvent(plan: Plan, id: Harness, hooks: readonly PlannedHook[], registration: CommandHookRegistration): { [event: string]: JsonValue[] } {
  const { events } = harness(id).hooks
  const groups: { [event: string]: JsonValue[] } = {}
  for (const hook of hooks) (groups[events[hook.on]!] ??= []).push(matcherGroup(plan, id, hook, registration))
  return groups
}
