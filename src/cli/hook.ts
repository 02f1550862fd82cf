import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { harness } from '../compile/harnesses/index.js'
import { DEFAULT_SERVER_NAME } from '../compile/plan.js'
import { BUILTIN_TOOLS, HOOK_EVENTS, type HookEvent } from '../define/hooks.js'
import { HARNESSES, type Harness } from '../define/types.js'
import type { HookAnswer } from '../runtime/hook-types.js'
import { owners } from '../write/owners.js'
import { type HarnessTrial, hookEvent, importer, readTree, type Sample, tryHook } from './hook-trial.js'

export const HOOK_HELP = `oac hook: try a compiled hook on a sample event, in each harness, as the harness runs it

Usage:
  oac hook <name> [--target <dir> | --scope user] [--tool <tool>] [--input <json>] [options]

  Runs the hook script the compile wrote into the target: for Claude Code, Codex, Gemini CLI, Qwen
  Code and Copilot, the command registered in their settings, with the event on stdin in that
  harness's format (the tool by the name its hooks see); for opencode, Kilo, pi and oh-my-pi, the
  script as their generated plugin runs it. Prints what each harness is told: block, allow, ask,
  rewrite, context, keep going, or no decision; and any error and output of the hook.

Options:
  --target <dir>           the compiled folder (default: .)
  --scope user             the tree installed in your home folder (oac compile --scope user)
  --server-name <name>     whose tree, where the target holds more than one (default: the only one, else oac-tools)
  --event <event>          the hook's event, checked: ${HOOK_EVENTS.join(', ')}
  --tool <tool>            beforeTool and afterTool: the tool called, one of yours or a portable
                           built-in (${BUILTIN_TOOLS.join(', ')}); any other name goes to every harness as it is
  --input <json>           the tool's input, a JSON object (default: {})
  --output <text>          afterTool: the text the tool returned (default: empty)
  --prompt <text>          userPrompt: the prompt (default: "Hello.")
  --harness <list>         comma-separated harnesses (default: every one the tree has the hook in)
  --json                   print the results as JSON
  -h, --help               show this help

Exit codes: 0 the hook ran in every harness, whatever it decided; 1 it failed or timed out somewhere;
2 bad command line (a hook, tree or event that is not there too).
`

class UsageError extends Error {}

interface HookArgs {
  name: string
  target: string
  scope?: 'user'
  serverName?: string
  event?: HookEvent
  sample: Sample
  harnesses?: Harness[]
  json: boolean
}

function parseHookArgs(argv: string[]): HookArgs | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      target: { type: 'string' },
      scope: { type: 'string' },
      'server-name': { type: 'string' },
      event: { type: 'string' },
      tool: { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      prompt: { type: 'string' },
      harness: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return 'help'
  const [name, ...rest] = positionals
  if (name === undefined) throw new UsageError('missing the hook\'s name, e.g. oac hook guard --tool shell --input \'{"command":"rm -rf x"}\'')
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`)
  if (values.scope !== undefined && values.scope !== 'user' && values.scope !== 'project') throw new UsageError(`--scope must be project or user, not "${values.scope}"`)
  const user = values.scope === 'user'
  if (user && values.target !== undefined) throw new UsageError(`--scope user tries the tree in your home folder (${homedir()}): leave out --target`)
  if (values.event !== undefined && !(HOOK_EVENTS as readonly string[]).includes(values.event)) throw new UsageError(`--event must be one of ${HOOK_EVENTS.join(', ')}, not "${values.event}"`)
  let input: Record<string, unknown> = {}
  if (values.input !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(values.input)
    } catch (error) {
      throw new UsageError(`--input is not JSON (${error instanceof Error ? error.message : String(error)}): give the tool's input as a JSON object, e.g. '{"command":"ls"}'`)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--input must be a JSON object (the tool's input), not ${values.input}`)
    input = parsed as Record<string, unknown>
  }
  let harnesses: Harness[] | undefined
  if (values.harness !== undefined) {
    const names = values.harness.split(',').map((h) => h.trim()).filter(Boolean)
    if (names.length === 0 || names.some((h) => !(HARNESSES as readonly string[]).includes(h))) throw new UsageError(`--harness takes a comma-separated list of ${HARNESSES.join(', ')}; got "${values.harness}"`)
    harnesses = names as Harness[]
  }
  return {
    name,
    target: user ? homedir() : resolve(values.target ?? '.'),
    ...(user && { scope: 'user' as const }),
    ...(values['server-name'] !== undefined && { serverName: values['server-name'] }),
    ...(values.event !== undefined && { event: values.event as HookEvent }),
    sample: { ...(values.tool !== undefined && { tool: values.tool }), input, output: values.output ?? '', prompt: values.prompt ?? 'Hello.' },
    ...(harnesses && { harnesses }),
    json: values.json ?? false,
  }
}

/** `oac hook <name>`: returns the exit code. */
export async function hookCommand(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let args: HookArgs | 'help'
  try {
    args = parseHookArgs(argv)
  } catch (error) {
    err(`oac hook: ${error instanceof Error ? error.message : String(error)}\nRun "oac hook --help" for usage.\n`)
    return 2
  }
  if (args === 'help') {
    out(HOOK_HELP)
    return 0
  }
  try {
    return await tryHookCommand(args, out, err)
  } catch (error) {
    // A manifest that cannot be read, a settings file that cannot be parsed: said, not thrown.
    err(`oac hook: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

async function tryHookCommand(args: HookArgs, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const fail = (message: string, code: 1 | 2) => {
    err(`oac hook: ${message}\n`)
    return code
  }
  const where = args.scope === 'user' ? `your home folder (${args.target})` : args.target
  const servers = await owners(args.target)
  const serverName = args.serverName ?? (servers.length === 1 ? servers[0]! : DEFAULT_SERVER_NAME)
  const tree = await readTree(args.target, serverName, args.scope)
  if (!tree) {
    const held = servers.length > 0 ? ` (it holds the trees of ${servers.join(', ')}: name one with --server-name)` : ''
    return fail(`${where} holds no tree compiled for ${serverName}${held}. Compile into it first (oac compile <registry>${args.scope === 'user' ? ' --scope user' : ' --target <dir>'}).`, 2)
  }
  const script = tree.hooks.get(args.name)
  if (script === undefined) {
    const hooks = [...tree.hooks.keys()]
    return fail(`the tree in ${where} has no hook "${args.name}". ${hooks.length > 0 ? `Its hooks: ${hooks.join(', ')}.` : 'It has no hooks: add one with defineHook and compile again.'}`, 2)
  }
  const harnesses = args.harnesses ?? [...HARNESSES]
  const started = importer(tree, args.name)
  const on = await hookEvent(tree, args.name, harnesses, started)
  if (args.event !== undefined && args.event !== on) return fail(`the hook "${args.name}" runs on ${on}, not ${args.event}.`, 2)
  const aboutTool = on === 'beforeTool' || on === 'afterTool'
  if (aboutTool && args.sample.tool === undefined) {
    return fail(`the hook "${args.name}" runs on ${on}: name the tool called with --tool (${[...tree.tools, ...BUILTIN_TOOLS].join(', ')}) and its input with --input.`, 2)
  }
  if (!aboutTool && args.sample.tool !== undefined) return fail(`the hook "${args.name}" runs on ${on}, which is about no tool: leave out --tool.`, 2)
  const sample = aboutTool ? args.sample : { ...args.sample, tool: undefined }
  const trials = await tryEach(harnesses, (id) => tryHook(tree, id, args.name, on, sample, started))
  // Without --harness, the harnesses the tree does not have the hook in are left out.
  const shown = args.harnesses ? trials : trials.filter((trial) => !trial.unregistered)
  if (shown.length === 0) return fail(`the hook "${args.name}" is registered in none of ${harnesses.join(', ')}: compile with them among the harnesses.`, 1)
  const failed = shown.some((trial) => trial.error !== undefined)
  if (args.json) {
    out(`${JSON.stringify({ ok: !failed, hook: args.name, event: on, target: args.target, ...(aboutTool && { tool: sample.tool, input: sample.input }), harnesses: shown.map(jsonTrial) }, null, 2)}\n`)
    return failed ? 1 : 0
  }
  const about = aboutTool ? ` on ${sample.tool} ${JSON.stringify(sample.input)}${on === 'afterTool' ? ` returning ${JSON.stringify(sample.output)}` : ''}` : on === 'userPrompt' ? ` on the prompt ${JSON.stringify(sample.prompt)}` : ''
  const width = Math.max(...shown.map((trial) => trial.harness.length)) + 1
  const lines = shown.map((trial) => trialLines(trial, width))
  out(`oac: hook "${args.name}" (${on})${about}, in ${where}\n${lines.join('\n')}\n`)
  return failed ? 1 : 0
}

/**
 * Each harness's trial, in order. The commands run side by side; the in-process runs one at a time,
 * since each catches this process's console output as its own.
 */
async function tryEach(harnesses: readonly Harness[], run: (id: Harness) => Promise<HarnessTrial>): Promise<HarnessTrial[]> {
  let inProcess = Promise.resolve()
  return Promise.all(
    harnesses.map((id) => {
      if (harness(id).hooks.registration.kind === 'command') return run(id)
      const trial = inProcess.then(() => run(id))
      inProcess = trial.then(
        () => undefined,
        () => undefined,
      )
      return trial
    }),
  )
}

/** A decision as one line's words. */
export function decisionText(answer: HookAnswer | undefined): string {
  if (!answer) return 'no decision'
  switch (answer.kind) {
    case 'block':
    case 'ask':
      return `${answer.kind} — ${answer.reason}`
    case 'allow':
      return answer.reason === undefined ? 'allow' : `allow — ${answer.reason}`
    case 'rewrite':
      return `rewrite — ${JSON.stringify(answer.input)}`
    case 'addContext':
      return `context — ${answer.text}`
    case 'keepGoing':
      return `keep going — ${answer.reason}`
  }
}

function trialLines(trial: HarnessTrial, width: number): string {
  const head = `  ${`${trial.harness}:`.padEnd(width)} `
  if (trial.skipped !== undefined) return `${head}not run — ${trial.skipped}`
  const indent = ' '.repeat(head.length)
  const more = (label: string, text: string | undefined) => (text === undefined ? [] : text.split('\n').map((line, i) => `${indent}${i === 0 ? label : ' '.repeat(label.length)}${line}`))
  return [
    `${head}${decisionText(trial.answer)}`,
    ...more('error: ', trial.error),
    ...more('shown to the user: ', trial.message),
    // The runtime's error lines are in `error` already.
    ...more('output: ', trial.output?.split('\n').filter((line) => !trial.error?.includes(line)).join('\n') || undefined),
  ].join('\n')
}

/** A trial for --json: the decision by name (`none` for no decision). */
function jsonTrial(trial: HarnessTrial): Record<string, unknown> {
  const { harness: id, answer, skipped, message, error, output, via } = trial
  const title = harness(id).title
  if (skipped !== undefined) return { harness: id, title, ran: false, skipped }
  const decision = answer === undefined ? 'none' : answer.kind === 'addContext' ? 'context' : answer.kind
  const detail = answer === undefined ? {} : answer.kind === 'rewrite' ? { input: answer.input } : answer.kind === 'addContext' ? { context: answer.text } : 'reason' in answer && answer.reason !== undefined ? { reason: answer.reason } : {}
  return { harness: id, title, ran: true, decision, ...detail, ...(message !== undefined && { message }), ...(error !== undefined && { error }), ...(output !== undefined && { output }), via }
}
