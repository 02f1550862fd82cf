import { harness } from '../compile/harnesses/index.js'
import type { Plan, PlannedHook } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import type { HookEvent } from '../define/hooks.js'
import type { Harness } from '../define/types.js'
import type { HookAnswer, HookEventData, HookWire } from '../runtime/hook-types.js'
import { generatedHeader } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import type { OwnedFile } from './types.js'

/*
 * The plugin (opencode, Kilo) or extension (pi, oh-my-pi) that runs our hooks in the harness's own
 * process: it imports each hook's script (which, imported, only loads the hook) and hands it each event
 * the harness raises, no process per call. Decisions go back through the harness's own API.
 */

/**
 * What every generated file declares of a hook script, imported (see runtime/hook-start.ts `startHookScript`,
 * runtime/hook-types.ts `HookAnswer`), and how it imports one: by a URL, as the inline bridge imports a
 * tool script, so that the file type-checks in the user's project (a static import of the `.mjs` has
 * no declarations: TS7016 under strict).
 */
function hookTypes(plan: Plan): string {
  const target = targetOf(plan)
  return `/** A hook script, imported: it loads the hook and runs it on an event (see unplugin-oac's runtime). */
type Answer =
  | { kind: "block" | "ask"; reason: string }
  | { kind: "allow"; reason?: string }
  | { kind: "rewrite"; input: Record<string, unknown> }
  | { kind: "addContext"; text: string }
  | { kind: "keepGoing"; reason: string }
type Hook = Promise<{ handle(event: Record<string, unknown>): Promise<{ answer?: Answer; error?: string }> }>

/** Imports a hook script by its path from ${target.scriptUrlBase}; a hook that fails to load fails each run of it, with the error. */
function load(script: string): Hook {
  const hook: Hook = import(${target.scriptUrl('script')}.href).then((module: { started: Hook }) => module.started)
  hook.catch(() => undefined)
  return hook
}`
}

/** The function that runs a list of hooks on one event, in order, each seeing what the one before decided (`apply`); errors go to the log. */
function runnerCode(server: string): string {
  return `
/** Runs the hooks on the event, in order, handing each decision to \`apply\`; a hook's error, for the user, goes to the log. */
async function run(hooks: Hook[], event: Record<string, unknown>, apply: (answer: Answer) => unknown = () => undefined): Promise<void> {
  for (const hook of hooks) {
    const { answer, error } = await (await hook).handle(event)
    if (error !== undefined) console.error(${jsString(`[${server}] `)} + error)
    if (answer) await apply(answer)
  }
}`
}

/** The generated file: the hook scripts it loads, and per event the list of its hooks, by name. */
function imports(plan: Plan, from: string, hooks: readonly PlannedHook[]): { code: string[]; lists: Map<HookEvent, string> } {
  const code = hooks.map((hook, i) => `const hook${i} = load(${jsString(targetOf(plan).scriptFrom(from, hook.script))}) // ${hook.name}`)
  const lists = new Map<HookEvent, string>()
  for (const [i, hook] of hooks.entries()) lists.set(hook.on, lists.has(hook.on) ? `${lists.get(hook.on)!.slice(0, -1)}, hook${i}]` : `[hook${i}]`)
  return { code, lists }
}

/**
 * The plugin or extension that runs `hooks` in `id`'s process. `harnessCode`, for opencode's plugin
 * alone, is the JS expression of the harness id the hooks are told (a plugin folder's module, which
 * opencode and Kilo both load, finds out which one it runs in); the default is `id`.
 */
export function hookPluginFile(plan: Plan, id: Harness, hooks: readonly PlannedHook[], path: string, harnessCode = jsString(id)): OwnedFile {
  const wire = harness(id).hooks.wire
  const sources = [...new Set(hooks.map((hook) => hook.source.file))].join(', ')
  const header = generatedHeader(`${hooks.length === 1 ? 'hook' : 'hooks'} ${hooks.map((hook) => JSON.stringify(hook.name)).join(', ')} (${sources})`)
  const { code, lists } = imports(plan, path, hooks)
  const body = PLUGIN_BODIES[wire as PluginWire](id, lists, harnessCode)
  const content = [header, ...targetOf(plan).scriptUrlImports, ...body.typeImports, ...code, '', hookTypes(plan), runnerCode(plan.serverName), '', ...body.code, ''].join('\n')
  return { kind: 'owned', path, content }
}

type PluginBody = (id: Harness, lists: ReadonlyMap<HookEvent, string>, harnessCode: string) => { typeImports: string[]; code: string[] }
const PLUGIN_BODIES: Record<PluginWire, PluginBody> = {
  opencode: opencodePlugin,
  pi: (id, lists) => piExtension(id, false, lists),
  omp: (id, lists) => piExtension(id, true, lists),
  cline: (id, lists) => clinePlugin(id, lists),
}

/**
 * opencode and Kilo: a plugin function. A throw blocks a tool and is what the model reads; a new
 * input is written into the arguments object the tool then runs with (a new object would not be);
 * session context joins the system prompt of every request of the session; prompt context is a part
 * added to the user's message; after a tool, context is appended to its output.
 */
function opencodePlugin(id: Harness, lists: ReadonlyMap<HookEvent, string>, harnessCode: string): { typeImports: string[]; code: string[] } {
  const pkg = id === 'kilo' ? '@kilocode/plugin' : '@opencode-ai/plugin'
  const base = `harness: ${harnessCode}, cwd: directory`
  const handlers: string[] = []
  const list = (event: HookEvent) => lists.get(event)
  if (list('beforeTool')) {
    handlers.push(`    "tool.execute.before": async (input, output) => {
      const args = output.args as Record<string, unknown>
      await run(${list('beforeTool')}, { kind: "beforeTool", ${base}, sessionId: input.sessionID, nativeTool: input.tool, input: { ...args } }, (answer) => {
        if (answer.kind === "block") throw new Error(answer.reason)
        if (answer.kind === "rewrite") {
          for (const key of Object.keys(args)) delete args[key]
          Object.assign(args, answer.input)
        }
      })
    },`)
  }
  if (list('afterTool')) {
    handlers.push(`    "tool.execute.after": async (input, output) => {
      const result = { text: output.output, isError: false }
      await run(${list('afterTool')}, { kind: "afterTool", ${base}, sessionId: input.sessionID, nativeTool: input.tool, input: input.args, result }, (answer) => {
        if (answer.kind === "addContext") output.output += "\\n\\n" + answer.text
      })
    },`)
  }
  if (list('sessionStart')) {
    handlers.push(`    "experimental.chat.system.transform": async (input, output) => {
      const key = input.sessionID ?? ""
      let texts = sessionContext.get(key)
      if (!texts) {
        const added: string[] = []
        texts = run(${list('sessionStart')}, { kind: "sessionStart", ${base}, sessionId: input.sessionID }, (answer) => answer.kind === "addContext" && added.push(answer.text)).then(() => added)
        sessionContext.set(key, texts)
      }
      output.system.push(...(await texts))
    },`)
  }
  if (list('userPrompt')) {
    handlers.push(`    "chat.message": async (input, output) => {
      const prompt = output.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\\n")
      const first = output.parts[0]
      await run(${list('userPrompt')}, { kind: "userPrompt", ${base}, sessionId: input.sessionID, prompt }, (answer) => {
        if (answer.kind === "addContext" && first) output.parts.push({ id: \`\${first.id}-context-\${output.parts.length}\`, sessionID: first.sessionID, messageID: first.messageID, type: "text", text: answer.text, synthetic: true })
      })
    },`)
  }
  if (list('stop')) {
    handlers.push(`    event: async ({ event }) => {
      if (event.type !== "session.idle") return
      await run(${list('stop')}, { kind: "stop", ${base}, sessionId: event.properties.sessionID, continued: false })
    },`)
  }
  if (list('preCompact')) {
    handlers.push(`    "experimental.session.compacting": async (input) => {
      await run(${list('preCompact')}, { kind: "preCompact", ${base}, sessionId: input.sessionID })
    },`)
  }
  return {
    typeImports: [`import type { Plugin } from ${jsString(pkg)}`],
    code: [
      'export const OacHooks: Plugin = async ({ directory }) => {',
      ...(list('sessionStart') ? ['  // Each session\'s context from its sessionStart hooks, run once per session.', '  const sessionContext = new Map<string, Promise<string[]>>()'] : []),
      '  return {',
      ...handlers,
      '  }',
      '}',
    ],
  }
}

/**
 * pi and oh-my-pi: an extension. A tool call is blocked by returning `{ block, reason }`; a new input
 * replaces the call's input (pi: in place; omp: returned). Session context is a message sent for the
 * next turn; prompt context a message before the agent starts; after a tool, a content block appended.
 * Keeping going: omp's `session_stop` asks for it; pi's `agent_end` only watches. `ask` confirms in the
 * UI and blocks without one.
 */
function piExtension(id: Harness, omp: boolean, lists: ReadonlyMap<HookEvent, string>): { typeImports: string[]; code: string[] } {
  const base = `harness: ${jsString(id)}, cwd: ctx.cwd`
  const handlers: string[] = []
  const list = (event: HookEvent) => lists.get(event)
  if (list('beforeTool')) {
    const rewrite = omp
      ? 'decided = { input: answer.input }'
      : 'const input = event.input as Record<string, unknown>\n          for (const key of Object.keys(input)) delete input[key]\n          Object.assign(input, answer.input)'
    handlers.push(`  pi.on("tool_call", async (event, ctx) => {
    let decided: { block: true; reason: string }${omp ? ' | { input: Record<string, unknown> }' : ''} | undefined
    await run(${list('beforeTool')}, { kind: "beforeTool", ${base}, nativeTool: event.toolName, input: { ...event.input } }, async (answer) => {
      if (decided && "block" in decided) return
      if (answer.kind === "block") decided = { block: true, reason: answer.reason }
      if (answer.kind === "ask" && !(ctx.hasUI && (await ctx.ui.confirm(\`Run \${event.toolName}?\`, answer.reason)))) decided = { block: true, reason: answer.reason }
      if (answer.kind === "rewrite") {
        ${rewrite}
      }
    })
    return decided
  })`)
  }
  if (list('afterTool')) {
    handlers.push(`  pi.on("tool_result", async (event, ctx) => {
    const text = event.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\\n")
    const added: string[] = []
    await run(${list('afterTool')}, { kind: "afterTool", ${base}, nativeTool: event.toolName, input: event.input, result: { text, isError: event.isError } }, (answer) => answer.kind === "addContext" && added.push(answer.text))
    return added.length > 0 ? { content: [...event.content, ...added.map((context) => ({ type: "text" as const, text: context }))] } : undefined
  })`)
  }
  if (list('sessionStart')) {
    handlers.push(`  pi.on("session_start", async (_event, ctx) => {
    await run(${list('sessionStart')}, { kind: "sessionStart", ${base} }, (answer) => {
      if (answer.kind === "addContext") pi.sendMessage({ customType: "oac-hook", content: answer.text, display: false }, { deliverAs: "nextTurn" })
    })
  })`)
  }
  if (list('userPrompt')) {
    handlers.push(`  pi.on("before_agent_start", async (event, ctx) => {
    const added: string[] = []
    await run(${list('userPrompt')}, { kind: "userPrompt", ${base}, prompt: event.prompt }, (answer) => answer.kind === "addContext" && added.push(answer.text))
    return added.length > 0 ? { message: { customType: "oac-hook", content: added.join("\\n\\n"), display: false } } : undefined
  })`)
  }
  if (list('stop')) {
    handlers.push(
      omp
        ? `  pi.on("session_stop", async (event, ctx) => {
    let reason: string | undefined
    await run(${list('stop')}, { kind: "stop", ${base}, continued: event.stop_hook_active === true }, (answer) => {
      if (answer.kind === "keepGoing") reason ??= answer.reason
    })
    return reason === undefined ? undefined : { decision: "block", reason }
  })`
        : `  // Watched only: pi's agent loop has ended when its extensions hear of it (see pi's description).
  pi.on("agent_end", async (_event, ctx) => {
    await run(${list('stop')}, { kind: "stop", ${base}, continued: false })
  })`,
    )
  }
  if (list('preCompact')) {
    handlers.push(`  pi.on("session_before_compact", async (_event, ctx) => {
    await run(${list('preCompact')}, { kind: "preCompact", ${base} })
  })`)
  }
  return {
    typeImports: omp ? [] : [`import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"`],
    code: [omp ? 'export default function (pi: OmpExtensionAPI) {' : 'export default function (pi: ExtensionAPI) {', handlers.join('\n\n'), '}', ...(omp ? [OMP_TYPES] : [])],
  }
}

/**
 * The wire of a harness that runs hooks in its own process, through a generated plugin or extension;
 * one body per wire (PLUGIN_BODIES), and a wire without one does not type-check.
 */
export type PluginWire = Exclude<HookWire, 'claude' | 'gemini' | 'copilot'>

/**
 * The event the generated handler of `sample.kind` hands each hook in harness `id` (the objects built in
 * opencodePlugin, piExtension and clinePlugin above, from the harness's own): `oac hook` hands a hook the same.
 */
export function pluginEvent(wire: PluginWire, id: Harness, sample: Omit<HookEventData, 'harness' | 'tool' | 'builtin'>): HookEventData {
  const event: HookEventData = { kind: sample.kind, harness: id, cwd: sample.cwd }
  // opencode's and Cline's hooks get the session's id; pi's extension events carry none.
  if ((wire === 'opencode' || wire === 'cline') && sample.sessionId !== undefined) event.sessionId = sample.sessionId
  if (sample.kind === 'beforeTool' || sample.kind === 'afterTool') Object.assign(event, { nativeTool: sample.nativeTool, input: { ...sample.input } })
  if (sample.kind === 'afterTool') event.result = sample.result ?? { text: '', isError: false }
  if (sample.kind === 'userPrompt') event.prompt = sample.prompt ?? ''
  // Only omp's session_stop says whether the agent was kept going already.
  if (sample.kind === 'stop') event.continued = wire === 'omp' && sample.continued === true
  return event
}

/**
 * What the generated plugin or extension does with a hook's decision, as the harness takes it: each
 * applies block, rewrite, context and keepGoing (where its harness can: the runtime's fallbacks have
 * already made the others a block or nothing) and passes `allow` over (no plugin API grants a call).
 * pi's and omp's `ask` confirms in the harness's UI, and blocks where it has none (`-p`).
 */
export function pluginAnswer(answer: HookAnswer | undefined): HookAnswer | undefined {
  return answer?.kind === 'allow' ? undefined : answer
}

/**
 * The part of oh-my-pi's extension API the extension uses (18.2.3, extensibility/extensions/types.ts),
 * declared here: its package installs only under bun, so a project on Node has no copy of its types to check this file against.
 */
const OMP_TYPES = `
type OmpContext = { cwd: string; hasUI: boolean; ui: { confirm(title: string, message: string): Promise<boolean> } }
type OmpBlock = { type: string; text?: string }
interface OmpExtensionAPI {
  on(event: "tool_call", handler: (event: { toolName: string; input: Record<string, unknown> }, ctx: OmpContext) => Promise<{ block: true; reason: string } | { input: Record<string, unknown> } | undefined>): void
  on(event: "tool_result", handler: (event: { toolName: string; input: Record<string, unknown>; content: OmpBlock[]; isError: boolean }, ctx: OmpContext) => Promise<{ content: OmpBlock[] } | undefined>): void
  on(event: "session_start" | "session_before_compact", handler: (event: unknown, ctx: OmpContext) => Promise<void>): void
  on(event: "before_agent_start", handler: (event: { prompt: string }, ctx: OmpContext) => Promise<{ message: { customType: string; content: string; display: boolean } } | undefined>): void
  on(event: "session_stop", handler: (event: { stop_hook_active?: boolean }, ctx: OmpContext) => Promise<{ decision: "block"; reason: string } | undefined>): void
  sendMessage(message: { customType: string; content: string; display: boolean }, options: { deliverAs: "nextTurn" }): void
}`

/**
 * Cline: a plugin module (`{ name, manifest, hooks }`) whose runtime hooks run in Cline's plugin sandbox.
 * `beforeTool` skips a blocked call with the reason, which is the tool result the model reads, or hands
 * back a new input; `afterTool` appends context, which Cline sends the model after the tool results.
 * The workspace is the session's (`snapshot`), not the sandbox's working folder.
 */
function clinePlugin(id: Harness, lists: ReadonlyMap<HookEvent, string>): { typeImports: string[]; code: string[] } {
  const base = `harness: ${jsString(id)}, cwd: process.cwd()`
  const handlers: string[] = []
  const list = (event: HookEvent) => lists.get(event)
  if (list('beforeTool')) {
    handlers.push(`    async beforeTool(context: ClineToolContext) {
      let decided: { skip: true; reason: string } | { input: Record<string, unknown> } | undefined
      await run(${list('beforeTool')}, { kind: "beforeTool", ${base}, sessionId: context.snapshot?.conversationId, nativeTool: context.tool.name, input: { ...(context.input as Record<string, unknown>) } }, (answer) => {
        if (decided && "skip" in decided) return
        if (answer.kind === "block" || answer.kind === "ask") decided = { skip: true, reason: answer.reason }
        if (answer.kind === "rewrite") decided = { input: answer.input }
      })
      return decided
    },`)
  }
  if (list('afterTool')) {
    handlers.push(`    async afterTool(context: ClineToolContext & { result: { output: unknown; isError?: boolean } }) {
      const output = context.result.output
      const result = { text: typeof output === "string" ? output : JSON.stringify(output ?? ""), isError: context.result.isError === true }
      const added: string[] = []
      await run(${list('afterTool')}, { kind: "afterTool", ${base}, sessionId: context.snapshot?.conversationId, nativeTool: context.tool.name, input: context.input, result }, (answer) => answer.kind === "addContext" && added.push(answer.text))
      return added.length > 0 ? { appendContext: added.join("\\n\\n") } : undefined
    },`)
  }
  return {
    typeImports: [],
    code: [
      '/** The part of a Cline runtime hook\'s context the hooks read (@cline/shared 0.0.86, agent.d.ts `AgentBeforeToolContext`). */',
      'type ClineToolContext = { tool: { name: string }; input: unknown; snapshot?: { conversationId?: string } }',
      '',
      'export default {',
      `  name: ${jsString(`${id}-hooks`)},`,
      '  manifest: { capabilities: ["hooks"] },',
      '  hooks: {',
      ...handlers,
      '  },',
      '}',
    ],
  }
}
