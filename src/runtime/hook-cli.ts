import type { AnyHookDefinition } from '../define/hooks.js'
import type { Harness } from '../define/types.js'
import { failedOutcome, runHook } from './hook.js'
import type { HookOutcome, HookSpec } from './hook-types.js'
import { type CommandWire, commandAnswer, readCommandEvent } from './hook-wire.js'

const COMMAND_WIRES: readonly string[] = ['claude', 'gemini', 'copilot'] satisfies CommandWire[]

/** All of stdin. By its events: its async iterator makes node load modules of its own, at every hook's start. */
function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    process.stdin
      .setEncoding('utf8')
      .on('data', (chunk: string) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject)
  })
}

function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (text === '') return Promise.resolve()
  return new Promise((resolve) => stream.write(text, () => resolve()))
}

/**
 * The command line of `scripts/hooks/<hook>.mjs --harness <id>`, as a harness runs it for one event:
 * the event as JSON on stdin, the decision as JSON on stdout, exit code 0 (an error of the hook is a
 * decision too: see runHook). A payload that cannot be read is such an error. Never returns: hook code
 * may leave timers or sockets open that would keep node alive.
 */
export async function runHookCli(hook: AnyHookDefinition, spec: HookSpec): Promise<never> {
  // stdout carries the answer alone: a `console.log` in hook code goes to stderr. (One write at the end: no
  // stream of its own, as the MCP server's, whose making a hook would pay for at every start.)
  const stdout = process.stdout
  const answerWrite = stdout.write.bind(stdout) as (text: string, written: () => void) => boolean
  // stderr is opened only when written to: a hook that prints nothing never pays for making its stream.
  stdout.write = ((...args: Parameters<typeof stdout.write>) => process.stderr.write(...(args as [string]))) as typeof stdout.write
  const at = process.argv.indexOf('--harness')
  const harness = (at === -1 ? undefined : process.argv[at + 1]) as Harness | undefined
  const wire = harness === undefined ? undefined : spec.wires[harness]
  // Copilot CLI runs the hooks of `.claude/settings.json` too, Claude's way; it has its own registration
  // (.github/hooks/), so Claude's stands aside there rather than run every hook twice.
  if (harness === 'claude' && process.env.COPILOT_CLI === '1') process.exit(0)
  if (harness === undefined || wire === undefined || !COMMAND_WIRES.includes(wire)) {
    await write(process.stderr, `The hook script of "${spec.name}" runs as \`--harness <id>\` with one of: ${Object.keys(spec.wires).join(', ')}. Build the tree again so that its registrations and scripts match.\n`)
    process.exit(2)
  }
  const env = Object.fromEntries(spec.env.map((name) => [name, process.env[name]]))
  let payload: Record<string, unknown> = {}
  let outcome: HookOutcome
  try {
    const parsed: unknown = JSON.parse((await readStdin()).replace(/^\uFEFF/, ''))
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('its event on stdin is not a JSON object')
    payload = parsed as Record<string, unknown>
    const data = readCommandEvent(wire as CommandWire, harness, spec, payload, process.cwd())
    outcome = data === undefined ? {} : await runHook(hook, spec, data, env)
  } catch (error) {
    outcome = failedOutcome(spec, `The hook "${spec.name}" could not read its event from ${harness}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const answer = commandAnswer(wire as CommandWire, payload, outcome, spec.events[harness])
  if (outcome.error !== undefined) await write(process.stderr, `${outcome.error}\n`)
  if (answer !== undefined) await new Promise<void>((resolve) => answerWrite(`${JSON.stringify(answer)}\n`, resolve))
  process.exit(0)
}
