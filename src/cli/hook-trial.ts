import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseYaml } from 'yaml'
import { type BoundedRun, runBounded } from '../bounded-run.js'
import { harness } from '../compile/harnesses/index.js'
import type { CommandHookRegistration, HookSupport } from '../compile/harnesses/types.js'
import { type Target, targetOf } from '../compile/target.js'
import { BUILTIN_TOOLS, HOOK_EVENTS, type HookEvent } from '../define/hooks.js'
import type { Harness } from '../define/types.js'
import { pluginAnswer, pluginEvent, type PluginWire } from '../emit/hook-plugins.js'
import type { HookAnswer, HookEventData } from '../runtime/hook-types.js'
import { type CommandWire, commandPayload, readCommandAnswer, type SampleEvent } from '../runtime/hook-wire.js'
import type { StartedHook } from '../runtime/hook-start.js'
import { readManifest, manifestPath } from '../write/manifest.js'

/*
 * `oac hook`: one hook of a compiled tree, tried on a sample event in each harness, as the harness runs
 * it. A command harness's registered command is run with the event on stdin in its wire format, and
 * its exit code and stdout read as the harness reads them (runtime/hook-wire.ts holds both sides of
 * each wire); an in-process harness's hook script is imported and handed the event its generated
 * plugin would hand it (emit/hook-plugins.ts).
 */

/** A compiled tree, as its manifest tells: where it is, its server, its hooks and tools. */
export interface CompiledTree {
  target: string
  serverName: string
  scope?: 'user'
  /** The kind of target it is (a project or a home), resolved once: where its scripts and each harness's files are. */
  resolved: Target
  /** Hook name -> its script, relative to the target. */
  hooks: Map<string, string>
  /** The names of our tools. */
  tools: string[]
  /** Every file the manifest lists, relative to the target. */
  files: string[]
}

/** The tree `serverName` compiled into `target`, from its manifest; undefined when the target holds none. */
export async function readTree(target: string, serverName: string, scope: 'user' | undefined): Promise<CompiledTree | undefined> {
  const path = join(target, manifestPath(serverName))
  if (!existsSync(path)) return undefined
  const { manifest, diagnostics } = await readManifest(path, manifestPath(serverName), serverName)
  if (diagnostics.length > 0) throw new Error(diagnostics.map((d) => `${d.message} ${d.fix}`).join('\n'))
  const resolved = targetOf({ serverName, scope })
  const scripts = `${resolved.scriptsFolder}/`
  const hooks = new Map<string, string>()
  const tools: string[] = []
  const files = Object.keys(manifest.files).sort()
  for (const file of files) {
    if (!file.startsWith(scripts)) continue
    // A hook's script is `hooks/<name>.mjs` (its code is `<name>.code.mjs`); a tool's `<name>.mjs`. Names hold no dot.
    const hook = /^hooks\/([^/.]+)\.mjs$/.exec(file.slice(scripts.length))?.[1]
    if (hook !== undefined) hooks.set(hook, file)
    const tool = /^([^/.]+)\.mjs$/.exec(file.slice(scripts.length))?.[1]
    if (tool !== undefined) tools.push(tool)
  }
  return { target, serverName, ...(scope && { scope }), resolved, hooks, tools, files }
}

/** The sample a hook is tried on, in portable terms: the tool by our name or a portable built-in's. */
export interface Sample {
  tool?: string
  input: Record<string, unknown>
  output: string
  prompt: string
}

/** What one harness was told by the hook, or why the hook did not run there. */
export interface HarnessTrial {
  harness: Harness
  /** Why the hook did not run in this harness (not an error: the harness would not run it either). */
  skipped?: string
  /** The tree holds no registration of the hook for this harness, though the harness has its event: the tree was compiled without it. */
  unregistered?: true
  /** What the harness took from the hook: absent, no decision. */
  answer?: HookAnswer
  /** What the harness shows the user besides (a command's `systemMessage`). */
  message?: string
  /** The hook's error, a timeout, or an answer the harness cannot read. */
  error?: string
  /** What the hook wrote besides its answer (its console output, the runtime's error lines). */
  output?: string
  /** What ran: the registered command, or the plugin that imports the hook. */
  via: string
}

/** A hook's registration in one harness: the command it runs (and for which event and tool names), or the plugin that runs it. */
type Registration =
  | { kind: 'command'; on: HookEvent; command: string; timeoutMs: number; matcher?: string; file: string; wire: CommandWire; registration: CommandHookRegistration }
  | { kind: 'plugin'; file: string; wire: PluginWire }

/** Where a file harness `id` reads at `path` in a project lies in the tree. */
function placed(tree: CompiledTree, id: Harness, path: string): string | undefined {
  return tree.resolved.kind === 'home' ? tree.resolved.places(path, [id])?.[0] : path
}

function readText(tree: CompiledTree, path: string): string | undefined {
  try {
    return readFileSync(join(tree.target, path), 'utf8')
  } catch {
    return undefined
  }
}

/** The hook's registration in harness `id`, from the files the compile wrote there (for Claude Code, also an agent's own hooks). */
function registration(tree: CompiledTree, id: Harness, name: string): Registration | undefined {
  const { hooks: support, agentFile } = harness(id)
  const script = tree.hooks.get(name)
  if (script === undefined) return undefined
  const file = placed(tree, id, support.registration.file(tree.serverName))
  if (support.registration.kind === 'plugin') {
    if (file === undefined) return undefined
    // The generated plugin imports each hook script it runs by its path (emit/hook-plugins.ts).
    return readText(tree, file)?.includes(`/hooks/${name}.mjs")`) ? { kind: 'plugin', file, wire: support.wire as PluginWire } : undefined
  }
  const command = support.registration
  const files = file === undefined ? [] : [file]
  if (support.scopesToAgents && agentFile) {
    // The agent files the tree holds, by the pattern of their paths there.
    const [before, after] = (placed(tree, id, agentFile('\0')) ?? '').split('\0')
    if (after !== undefined) files.push(...tree.files.filter((path) => path.startsWith(before!) && path.endsWith(after)))
  }
  for (const path of files) {
    const text = readText(tree, path)
    if (text === undefined) continue
    const found = commandIn(path.endsWith('.md') ? frontmatter(text) : parseJsonc(text), support, command, script, id)
    if (found) return { kind: 'command', ...found, file: path, wire: support.wire as CommandWire, registration: command }
  }
  return undefined
}

function frontmatter(text: string): unknown {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)
  return match ? parseYaml(match[1]!) : undefined
}

/** The handler of the hook's script for harness `id` in a document of hooks by event (the settings' shape or Copilot's). */
function commandIn(document: unknown, support: HookSupport, registration: CommandHookRegistration, script: string, id: Harness): Omit<Extract<Registration, { kind: 'command' }>, 'kind' | 'file' | 'wire' | 'registration'> | undefined {
  const byEvent = record(record(document)?.hooks)
  if (!byEvent) return undefined
  const ours = (command: unknown): command is string => typeof command === 'string' && command.includes(script) && command.endsWith(` --harness ${id}`)
  for (const on of HOOK_EVENTS) {
    const event = support.events[on]
    const list = event === undefined ? undefined : byEvent[event]
    if (!Array.isArray(list)) continue
    for (const item of list.map(record)) {
      // Copilot's entry is the handler, its matcher beside the command; the settings' shape groups handlers under a matcher.
      const handlers = registration.shape === 'copilot' ? [item] : Array.isArray(item?.hooks) ? item.hooks.map(record) : []
      for (const handler of handlers) {
        const command = handler?.[registration.shape === 'copilot' ? 'bash' : 'command']
        if (!ours(command)) continue
        const timeout = Number(handler?.[registration.timeout.key])
        const matcher = item?.matcher
        return { on, command, timeoutMs: registration.timeout.unit === 's' ? timeout * 1000 : timeout, ...(typeof matcher === 'string' && { matcher }) }
      }
    }
  }
  return undefined
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/** The tool's name in harness `id`'s hooks: ours as its hooks see it, a portable built-in as the harness's first; anything else as given. */
function nativeTool(tree: CompiledTree, id: Harness, tool: string): string | undefined {
  const { hooks } = harness(id)
  if ((BUILTIN_TOOLS as readonly string[]).includes(tool)) return hooks.builtins[tool as (typeof BUILTIN_TOOLS)[number]]?.[0]
  return tree.tools.includes(tool) ? hooks.toolName(tree.serverName, tool) : tool
}

/** The sample event of a hook on `on` in harness `id`, with the tool by its name there. */
function sampleEvent(tree: CompiledTree, on: HookEvent, sample: Sample, native: string | undefined): SampleEvent {
  const cwd = tree.scope === 'user' ? process.cwd() : tree.target
  const event: SampleEvent = { kind: on, cwd, sessionId: 'oac-hook-trial' }
  if (on === 'beforeTool' || on === 'afterTool') Object.assign(event, { nativeTool: native, input: sample.input })
  if (on === 'afterTool') event.result = { text: sample.output, isError: false }
  if (on === 'userPrompt') event.prompt = sample.prompt
  if (on === 'sessionStart') event.source = 'startup'
  if (on === 'stop') event.continued = false
  if (on === 'preCompact') event.trigger = 'manual'
  return event
}

/** The error lines the runtime writes on stderr for a hook (runHook's `The hook "<name>" failed: ...`, the command line's and the launcher's `could not ...`). */
function runtimeErrors(name: string, text: string): string[] {
  const prefix = `The hook ${JSON.stringify(name)} `
  return text.split('\n').filter((line) => line.startsWith(prefix) && /^(?:failed|could not)\b/.test(line.slice(prefix.length)))
}

/**
 * Tries the hook in harness `id` on `sample`: runs its registered command with the event on stdin as the
 * harness would (its project folder variable set, within its timeout), or hands its imported script the
 * event the generated plugin would; what the harness takes from it, or why the hook does not run there.
 */
export async function tryHook(tree: CompiledTree, id: Harness, name: string, on: HookEvent, sample: Sample, started: () => Promise<StartedHook>): Promise<HarnessTrial> {
  const { title, hooks: support } = harness(id)
  const found = registration(tree, id, name)
  if (!found) {
    if (support.events[on] === undefined) return { harness: id, skipped: `${title} has no ${on} event: the hook does not run there`, via: '' }
    return { harness: id, skipped: `the tree holds no registration of the hook for ${title} (compile with ${id} among the harnesses)`, unregistered: true, via: '' }
  }
  const native = sample.tool === undefined ? undefined : nativeTool(tree, id, sample.tool)
  if (sample.tool !== undefined && native === undefined) return { harness: id, skipped: `${title} has no built-in ${sample.tool} tool`, via: found.file }
  const event = sampleEvent(tree, on, sample, native)
  if (found.kind === 'plugin') return tryInProcess(id, found, event, started)
  if (found.matcher !== undefined && native !== undefined && !new RegExp(found.matcher).test(native)) {
    return { harness: id, skipped: `its matcher ${found.matcher} (${found.file}) does not match ${native}: ${title} does not run it for that tool`, via: found.command }
  }
  const trial: HarnessTrial = { harness: id, via: found.command }
  let run: BoundedRun
  try {
    run = await runCommand(tree, found, commandPayload(found.wire, support.events[on]!, event), id)
  } catch (error) {
    return { ...trial, error: `its command could not be started: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (run.stderr.trim() !== '') trial.output = run.stderr.trimEnd()
  if (run.timedOut) return { ...trial, error: `it did not finish within the ${found.timeoutMs / 1000} s ${title} gives it (${found.file}): ${title} goes on without its answer` }
  const reading = readCommandAnswer(found.wire, on, run)
  if (reading.answer) trial.answer = reading.answer
  if (reading.message !== undefined) trial.message = reading.message
  const errors = [...(reading.failure === undefined ? [] : [reading.failure]), ...runtimeErrors(name, run.stderr)]
  if (errors.length > 0) trial.error = errors.join('\n')
  return trial
}

/** Runs a registered command as its harness does: through the shell, in the session's folder, the payload on stdin, killed at its timeout. */
function runCommand(tree: CompiledTree, found: Extract<Registration, { kind: 'command' }>, payload: Record<string, unknown>, id: Harness): Promise<BoundedRun> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  // Copilot CLI sets COPILOT_CLI for its hooks (and Claude's registration stands aside where it is set).
  delete env.COPILOT_CLI
  if (id === 'copilot') env.COPILOT_CLI = '1'
  const projectDir = found.registration.projectDir?.replace(/[${}]/g, '')
  if (projectDir !== undefined && tree.scope !== 'user') env[projectDir] = tree.target
  const cwd = tree.scope === 'user' ? process.cwd() : tree.target
  return runBounded(found.command, [], { shell: true, cwd, env, timeoutMs: found.timeoutMs, input: JSON.stringify(payload) })
}

/** Hands the imported hook the event its generated plugin would, catching what it prints (it runs in this process, as in the harness's). */
async function tryInProcess(id: Harness, found: Extract<Registration, { kind: 'plugin' }>, sample: SampleEvent, started: () => Promise<StartedHook>): Promise<HarnessTrial> {
  const trial: HarnessTrial = { harness: id, via: found.file }
  const printed: string[] = []
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const
  const saved = methods.map((method) => console[method])
  for (const method of methods) console[method] = (...args: unknown[]) => void printed.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '))
  try {
    const hook = await started()
    const event: HookEventData = pluginEvent(found.wire, id, sample)
    const outcome = await hook.handle(event)
    const answer = pluginAnswer(outcome.answer)
    if (answer) trial.answer = answer
    if (outcome.error !== undefined) trial.error = outcome.error
  } catch (error) {
    // The generated plugin awaits the hook's loading at each run, and throws its failure out of the handler:
    // a tool call's handler that throws blocks the call with the error's message (opencode's plugin API;
    // pi 0.73's emitToolCall rethrows it), whatever the hook's onError.
    const message = error instanceof Error ? error.message : String(error)
    if (sample.kind === 'beforeTool') trial.answer = { kind: 'block', reason: message }
    trial.error = `The hook could not be loaded: ${message}`
  } finally {
    methods.forEach((method, i) => (console[method] = saved[i]!))
  }
  if (printed.length > 0) trial.output = printed.join('\n')
  return trial
}

/** The hook's event, from its registration in a command harness, or else from the hook itself, imported; throws when it cannot be loaded. */
export async function hookEvent(tree: CompiledTree, name: string, harnesses: readonly Harness[], started: () => Promise<StartedHook>): Promise<HookEvent> {
  for (const id of harnesses) {
    const found = registration(tree, id, name)
    if (found?.kind === 'command') return found.on
  }
  try {
    return (await started()).hook.on
  } catch (error) {
    throw new Error(`the hook "${name}" is registered in no command harness of ${harnesses.join(', ')}, and its script ${tree.hooks.get(name)} could not be loaded to tell its event: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** Imports the hook's script once: the module a generated plugin imports, which loads the hook. */
export function importer(tree: CompiledTree, name: string): () => Promise<StartedHook> {
  let loaded: Promise<StartedHook> | undefined
  return () => {
    loaded ??= import(pathToFileURL(join(tree.target, tree.hooks.get(name)!)).href).then((module: { started: Promise<StartedHook> }) => module.started)
    return loaded
  }
}
