import type { JsonSchema } from '../compile/plan.js'
import type { AnyToolDefinition } from '../define/types.js'
import { describeValue } from './describe.js'
import { formatHelp, inputFlags, parseCommand } from './flags.js'
import { IMAGE_TYPES, type InputCheck, invokeTool } from './invoke.js'
import { divertStdout } from './mcp-stdio.js'
import { ENVELOPE_VERSION, type InvokeResult, type ResultImage } from './types.js'

/** What a tool script knows about its tool besides the code: embedded by the generated entry. */
export interface ToolScriptSpec {
  name: string
  description: string
  /** The script path relative to the target (`scripts/<tool>.mjs`), for usage lines. */
  script: string
  /** The canonical JSON Schema of the input: flags and `--help` derive from it. */
  schema: JsonSchema
  /** Names of the environment variables handed to the tool as `ctx.env`. */
  env: string[]
}

/** Prefix of the stderr line carrying one progress message; bridges parse these lines. */
export const PROGRESS_PREFIX = 'oac:progress '

function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (text === '') return Promise.resolve()
  return new Promise((resolve) => stream.write(text, () => resolve()))
}

/** The real stdout, once taken from tool code by `divertStdout`: only the runner writes the result there. */
let resultStream: NodeJS.WritableStream = process.stdout

/** Flushes both streams before exiting: a tool may leave timers or sockets that would keep node alive. */
async function exit(code: number, stdout: string, stderr = ''): Promise<never> {
  await write(resultStream, stdout)
  await write(process.stderr, stderr)
  process.exit(code)
}

async function readJsonObject(stream: NodeJS.ReadStream): Promise<{ value: object } | { problem: string }> {
  let text = ''
  stream.setEncoding('utf8')
  for await (const chunk of stream) text += chunk as string
  text = text.replace(/^\uFEFF/, '')
  if (text.trim() === '') return { problem: 'expected one JSON object on stdin, got nothing' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { problem: `invalid JSON on stdin: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { problem: `expected one JSON object on stdin, got ${describeValue(value)}` }
  }
  return { value }
}

/**
 * The command line of `scripts/<tool>.mjs`: flags or `--json` on stdin in, the result on stdout.
 * Exit code 0 on success, 2 on invalid input (each problem names the field), 1 when the tool
 * fails (its message; the stack only with `OAC_DEBUG` set). Images go to files in a new temp folder,
 * their paths and the details on stderr; with `--envelope 1` the whole result is one JSON object on
 * stdout instead (see ENVELOPE_VERSION). Never returns.
 */
export async function runToolCli(tool: AnyToolDefinition, spec: ToolScriptSpec, check: InputCheck): Promise<never> {
  // stdout carries the result alone, as the inline bridge and the MCP server give it: a
  // `console.log` in tool code goes to stderr.
  resultStream = divertStdout()
  let envelope = false
  try {
    const flags = inputFlags(spec.schema)
    const command = parseCommand(process.argv.slice(2), flags)
    if (command.kind === 'help') return await exit(0, formatHelp(spec, flags))
    if (command.envelope !== undefined && command.envelope !== ENVELOPE_VERSION) {
      return await exit(2, '', `--envelope ${command.envelope}: this script writes result envelope ${ENVELOPE_VERSION}. Build the tree again, so that its shims and scripts match.\n`)
    }
    envelope = command.envelope !== undefined
    if (command.kind === 'invalid') return await report(spec, invalidInput(command.problems), envelope)
    let input: unknown
    if (command.kind === 'json') {
      const read = await readJsonObject(process.stdin)
      if ('problem' in read) return await report(spec, invalidInput([read.problem]), envelope)
      input = read.value
    } else {
      input = command.input
    }

    const controller = new AbortController()
    const cancel = (signal: 'SIGINT' | 'SIGTERM') => {
      // The first signal asks the tool to stop through ctx.signal; a second one does not wait for it.
      if (controller.signal.aborted) process.exit(128 + process.getBuiltinModule('node:os').constants.signals[signal])
      controller.abort(new Error(`cancelled by ${signal}`))
    }
    process.on('SIGINT', cancel)
    process.on('SIGTERM', cancel)

    // A run() awaiting something that holds no handle lets node exit mid-call with code 0 and no
    // output; report that as the failure it is.
    const unfinished = () => {
      process.stderr.write(`${spec.name} did not finish: its run() returned a promise that never settled, and nothing was left to wait for.\n`)
      process.exitCode = 1
    }
    process.once('exit', unfinished)
    const result = await invokeTool(tool, input, {
      signal: controller.signal,
      cwd: process.cwd(),
      env: Object.fromEntries(spec.env.map((name) => [name, process.env[name]])),
      progress: (message) => {
        process.stderr.write(`${PROGRESS_PREFIX}${JSON.stringify({ message: String(message) })}\n`)
      },
    }, check)
    process.off('exit', unfinished)
    return await report(spec, result, envelope)
  } catch (error) {
    // Only a defect of the runner itself lands here: the tool's own errors come back as results.
    const message = error instanceof Error ? error.message : String(error)
    const stack = error instanceof Error ? error.stack : undefined
    return await report(spec, { ok: false, kind: 'tool-error', message, ...(stack !== undefined && { stack }) }, envelope)
  }
}

function invalidInput(problems: string[]): InvokeResult {
  return { ok: false, kind: 'invalid-input', message: problems.join('\n') }
}

/** Writes the result (for people, or as the envelope) and exits with its code: 0, 1 for a failed call, 2 for invalid input. */
async function report(spec: ToolScriptSpec, result: InvokeResult, envelope: boolean): Promise<never> {
  const code = result.ok ? 0 : result.kind === 'invalid-input' ? 2 : 1
  const stack = !result.ok && result.kind === 'tool-error' && process.env.OAC_DEBUG ? result.stack : undefined
  if (envelope) {
    // The stack stays out of the envelope, which the model reads; with OAC_DEBUG it goes to stderr.
    const { stack: _stack, ...plain } = result as InvokeResult & { stack?: string }
    return exit(code, `${JSON.stringify({ envelope: Number(ENVELOPE_VERSION), ...plain })}\n`, stack ? `${stack}\n` : '')
  }
  if (!result.ok && result.kind === 'invalid-input') {
    const problems = result.message.split('\n').map((problem) => `  ${problem}\n`).join('')
    return exit(2, '', `Invalid input for ${spec.name}:\n${problems}Run "node ${spec.script} --help" for the options.\n`)
  }
  const details = result.details === undefined ? '' : `details: ${JSON.stringify(result.details)}\n`
  if (!result.ok) return exit(1, '', `${stack ?? result.message}\n${details}`)
  const images = result.images ? await writeImages(spec.name, result.images) : []
  const text = result.text === '' || result.text.endsWith('\n') ? result.text : `${result.text}\n`
  return exit(0, text, `${images.map((image) => `image: ${image}\n`).join('')}${details}`)
}

/** The images as files in a new folder of the OS temp folder (one per call, so calls never share one); their paths. */
async function writeImages(tool: string, images: readonly ResultImage[]): Promise<string[]> {
  // Built-ins taken as the rest of the runtime takes them (see start.ts), and only by a call with images.
  const { mkdtemp, writeFile } = process.getBuiltinModule('node:fs/promises')
  const { tmpdir } = process.getBuiltinModule('node:os')
  const { join } = process.getBuiltinModule('node:path')
  const folder = await mkdtemp(join(tmpdir(), `oac-${tool}-`))
  return Promise.all(
    images.map(async (image, i) => {
      const path = join(folder, `image-${i + 1}.${IMAGE_TYPES[image.mimeType]}`)
      await writeFile(path, Buffer.from(image.data, 'base64'))
      return `${path} (${image.mimeType})`
    }),
  )
}
