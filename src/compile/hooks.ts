import { type AnyHookDefinition, BUILTIN_TOOLS, type BuiltinTool, EVENT_DECISIONS, HOOK_EVENTS, type HookDecisionKind } from '../define/hooks.js'
import type { AnyToolDefinition, RegistryDefinition } from '../define/types.js'
import type { DiagnosticCode } from '../diagnostic-codes.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { isAgent, isHook, isTool } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import { hookNameProblem } from './names.js'
import { registryList } from './registry-lists.js'
import type { PlannedHook, PlannedTool } from './plan.js'
import { targetOf } from './target.js'
import { plannedSource } from './source.js'

/** A hook may run this long at most: harnesses cut hooks off sooner (Codex, Claude Code: 10 minutes). */
const MAX_TIMEOUT_MS = 600_000

/** The registry's hooks made by defineHook, each name once; anything else is reported. */
function registryHooks(registry: RegistryDefinition, findings: Findings): AnyHookDefinition[] {
  return registryList(registry, registry.hooks, { key: 'hooks', noun: 'hook', is: isHook, made: 'defineHook({ name, description, on, run })', unique: 'each hook becomes one script' }, findings)
}

/**
 * The hooks the agents list that the registry does not, each with the agents that list it: they run for
 * those agents alone, where a harness scopes hooks to an agent. A name the registry's hooks or another
 * agent's have for another definition is reported.
 */
function agentHooks(registry: RegistryDefinition, registryList: readonly AnyHookDefinition[], findings: Findings): Map<AnyHookDefinition, string[]> {
  const scoped = new Map<AnyHookDefinition, string[]>()
  for (const agent of Array.isArray(registry.agents) ? registry.agents.filter(isAgent) : []) {
    const listed: unknown = agent.hooks
    if (!Array.isArray(listed)) continue
    listed.forEach((hook: unknown, i) => {
      if (!isHook(hook)) {
        findings.error('definition-invalid', `Agent "${agent.name}"'s hooks[${i}] is not a hook made by defineHook.`, "Create hooks with defineHook({ name, description, on, run }) from 'unplugin-oac'.", agent.source)
        return
      }
      if (registryList.includes(hook)) return
      const twin = [...registryList, ...scoped.keys()].find((other) => other.name === hook.name && other !== hook)
      if (twin) {
        findings.error('hook-duplicate', `Two hooks are named "${hook.name}": this one and the one at ${findings.where(twin.source)}.`, 'Rename one of them: each hook becomes one script.', hook.source)
        return
      }
      scoped.set(hook, [...new Set([...(scoped.get(hook) ?? []), agent.name])])
    })
  }
  return scoped
}

/** The hooks the config picks by name (all of them when it names none); unknown names are reported. */
function selectedHooks(hooks: AnyHookDefinition[], config: ResolvedConfig, registry: RegistryDefinition, findings: Findings): AnyHookDefinition[] {
  const names: unknown = config.profile.hooks
  if (names === undefined) return hooks
  if (!Array.isArray(names)) {
    findings.error('config-hook-unknown', `Config "${config.config}"'s hooks must be a list of hook names.`, `List some of: ${hooks.map((hook) => hook.name).join(', ') || '(the registry has no hooks)'}.`, registry.source)
    return []
  }
  for (const name of names.filter((name) => !hooks.some((hook) => hook.name === name))) {
    findings.error(
      'config-hook-unknown',
      `Config "${config.config}" names the hook "${String(name)}", which the registry's hooks do not define.`,
      hooks.length > 0 ? `Use some of: ${hooks.map((hook) => hook.name).join(', ')}; or add the hook to defineRegistry({ hooks }).` : 'Add the hook to defineRegistry({ hooks: [...] }).',
      registry.source,
    )
  }
  return hooks.filter((hook) => names.includes(hook.name))
}

/** The hook's checked settings and the tools it watches, or undefined after reporting what is wrong. */
function planHook(hook: AnyHookDefinition, tools: readonly PlannedTool[], config: ResolvedConfig, root: string, findings: Findings, decisions: HookDecisionKind[] | undefined): PlannedHook | undefined {
  let ok = true
  const problem = (code: DiagnosticCode, message: string, fix: string) => {
    findings.error(code, message, fix, hook.source)
    ok = false
  }
  const nameProblem = hookNameProblem(hook.name)
  if (nameProblem) problem('hook-name-invalid', `The hook name "${hook.name}" ${nameProblem}.`, 'Rename the hook, e.g. "guard" or "session-context".')
  if (typeof hook.description !== 'string' || hook.description.trim() === '') problem('hook-description-missing', `Hook "${hook.name}" has no description.`, 'Say in a sentence what the hook does: it is shown where harnesses list hooks.')
  if (!(HOOK_EVENTS as readonly unknown[]).includes(hook.on)) {
    problem('hook-event-unknown', `Hook "${hook.name}" runs on "${String(hook.on)}", which is not a hook event.`, `Use one of: ${HOOK_EVENTS.join(', ')}.`)
    return undefined
  }
  if (hook.onError !== 'block' && hook.onError !== 'allow') problem('hook-on-error-invalid', `Hook "${hook.name}" has onError "${String(hook.onError)}".`, "Use 'block' (a failing hook blocks the call) or 'allow'.")
  if (!Number.isInteger(hook.timeoutMs) || hook.timeoutMs < 1 || hook.timeoutMs > MAX_TIMEOUT_MS) {
    problem('hook-timeout-invalid', `Hook "${hook.name}" has timeoutMs ${String(hook.timeoutMs)}.`, `Give a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}.`)
  }
  const watched = watchedTools(hook, tools, findings)
  if (watched === 'invalid') ok = false
  if (!ok || watched === 'invalid') return undefined
  return {
    name: hook.name,
    description: hook.description,
    on: hook.on,
    ...(watched && { tools: watched }),
    onError: hook.onError,
    timeoutMs: hook.timeoutMs,
    ...(decisions && { decisions: decisions.filter((kind) => EVENT_DECISIONS[hook.on].includes(kind)) }),
    source: plannedSource(root, hook.source),
    script: `${targetOf(config).scriptsFolder}/hooks/${hook.name}.mjs`,
  }
}

/** The tools a hook names, checked: ours must be tools of the registry, built-ins portable names; only tool events watch tools. */
function watchedTools(hook: AnyHookDefinition, tools: readonly PlannedTool[], findings: Findings): PlannedHook['tools'] | 'invalid' {
  const listed: unknown = hook.tools
  if (listed === undefined) return undefined
  if (hook.on !== 'beforeTool' && hook.on !== 'afterTool') {
    findings.error('hook-tools-invalid', `Hook "${hook.name}" runs on ${hook.on}, which is about no tool, but lists tools.`, 'Leave out `tools`, or run the hook on beforeTool or afterTool.', hook.source)
    return 'invalid'
  }
  if (!Array.isArray(listed) || listed.length === 0) {
    findings.error('hook-tools-invalid', `Hook "${hook.name}"'s tools must be a list of tool definitions and built-in names.`, `List the tools it watches (leave \`tools\` out for every tool call), e.g. tools: [myTool, 'shell'].`, hook.source)
    return 'invalid'
  }
  const ours: string[] = []
  const builtins: BuiltinTool[] = []
  let ok = true
  for (const entry of listed as unknown[]) {
    if (typeof entry === 'string') {
      if ((BUILTIN_TOOLS as readonly string[]).includes(entry)) builtins.push(entry as BuiltinTool)
      else {
        findings.error('hook-tool-unknown', `Hook "${hook.name}" names "${entry}", which is not a portable built-in tool.`, `Use one of: ${BUILTIN_TOOLS.join(', ')}; or pass one of your tools' definitions.`, hook.source)
        ok = false
      }
    } else if (isTool(entry) && tools.some((tool) => tool.name === (entry as AnyToolDefinition).name)) ours.push(entry.name)
    else {
      const what = isTool(entry) ? `the tool "${entry.name}", which the registry's agents and tools do not include` : 'something that is not a tool made by defineTool'
      findings.error('hook-tool-unknown', `Hook "${hook.name}" watches ${what}.`, 'Add the tool to defineRegistry({ tools }) or to an agent, or take it out of the hook.', hook.source)
      ok = false
    }
  }
  return ok ? { ours: [...new Set(ours)], builtins: [...new Set(builtins)] } : 'invalid'
}

/**
 * One warning per selected harness and hook that it cannot run as written: an event it does not have,
 * a built-in it does not have, a tool of ours it does not get natively (its hooks see it only as a
 * shell command), a decision it cannot carry (and what happens instead).
 */
function warnUnsupported(hook: PlannedHook, tools: readonly PlannedTool[], config: ResolvedConfig, findings: Findings, at: AnyHookDefinition['source']): void {
  for (const id of config.harnesses) {
    const { title, hooks } = harness(id)
    const event = hooks.events[hook.on]
    if (event === undefined) {
      findings.warning('hook-unsupported', `${title} has no ${hook.on} event: hook "${hook.name}" does not run there.`, `Accept it, or leave ${id} out of the config's harnesses.`, at)
      continue
    }
    // Claude Code reads no `hooks` in a plugin agent's file (Target.agentHooks): from a plugin, its hooks run for every agent.
    const pluginAgents = hooks.scopesToAgents && !targetOf(config).agentHooks
    if (hook.agents && (!hooks.scopesToAgents || pluginAgents)) {
      findings.warning(
        'hook-unsupported',
        `${title} cannot run a hook for one agent alone${pluginAgents ? " from a plugin (it reads no hooks in a plugin agent's file)" : ''}: hook "${hook.name}", which ${hook.agents.map((agent) => `"${agent}"`).join(', ')} ${hook.agents.length === 1 ? 'lists' : 'list'}, runs for every agent there.`,
        'Accept it, check event.harness in the hook, or list the hook in the registry for every agent.',
        at,
      )
    }
    const missing = (hook.tools?.builtins ?? []).filter((name) => hooks.builtins[name] === undefined)
    if (missing.length > 0) {
      findings.warning(
        'hook-unsupported',
        `${title} has no built-in ${missing.map((name) => `"${name}"`).join(' or ')} tool: hook "${hook.name}" watches ${missing.length === 1 ? 'it' : 'them'} in the other harnesses only.`,
        'Accept it, or take the built-in out of the hook\'s tools.',
        at,
      )
    }
    const bashOnly = (hook.tools?.ours ?? []).filter((name) => !config.nativeTools || tools.find((tool) => tool.name === name)?.json === false)
    if (bashOnly.length > 0) {
      findings.warning(
        'hook-unsupported',
        `${bashOnly.map((name) => `"${name}"`).join(', ')} ${bashOnly.length === 1 ? 'runs' : 'run'} on the bash route only, so ${title}'s hooks see ${bashOnly.length === 1 ? 'its calls' : 'their calls'} as shell commands: hook "${hook.name}" does not see ${bashOnly.length === 1 ? 'it' : 'them'} there by name.`,
        "Give the tool its JSON contract (json: true, native tools on), or watch the built-in 'shell' as well.",
        at,
      )
    }
    for (const kind of hook.decisions ?? EVENT_DECISIONS[hook.on]) {
      const limit = hooks.limits[kind]
      if (!limit) continue
      const instead = limit.instead === 'block' ? 'the call is blocked instead' : 'it is passed over'
      findings.warning(
        'hook-unsupported',
        `${title} ${limit.says}: where hook "${hook.name}" decides to ${kind}${hook.decisions ? '' : ' (its code may: it passes its ctx on)'}, ${instead}.`,
        `Accept it, decide another way in ${title} (event.harness says which harness called), or leave ${id} out of the config's harnesses.`,
        at,
      )
    }
  }
}

/**
 * The config's hooks, planned: the registry's and those agents list (for those agents alone), each
 * checked, named, and warned about where a selected harness cannot run it as written. `decisions`:
 * what each hook's `run` decides, where its code tells (load reads it).
 */
export function planHooks(
  registry: RegistryDefinition,
  config: ResolvedConfig,
  tools: readonly PlannedTool[],
  root: string,
  findings: Findings,
  decisions: ReadonlyMap<AnyHookDefinition, HookDecisionKind[]>,
): PlannedHook[] {
  const registryList = registryHooks(registry, findings)
  const scoped = agentHooks(registry, registryList, findings)
  const planned: PlannedHook[] = []
  for (const hook of selectedHooks([...registryList, ...scoped.keys()], config, registry, findings)) {
    const plannedHook = planHook(hook, tools, config, root, findings, decisions.get(hook))
    if (!plannedHook) continue
    const agents = scoped.get(hook)
    if (agents) plannedHook.agents = agents
    warnUnsupported(plannedHook, tools, config, findings, hook.source)
    planned.push(plannedHook)
  }
  return planned
}
