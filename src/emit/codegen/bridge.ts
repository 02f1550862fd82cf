import type { Plan } from '../../compile/plan.js'
import { targetOf } from '../../compile/target.js'
import { ENVELOPE_VERSION } from '../../runtime/types.js'
import { jsLineComment, jsString } from './escape.js'
import { objectLiteral } from './js-literal.js'

/**
 * The bridge from a native shim (opencode tool, pi extension, oh-my-pi tool) to a bundled tool
 * script, generated once per shim file. Both flavours define the same function,
 *
 *   runTool(script: string, input: unknown, call: ToolCall): Promise<ToolOutcome>
 *
 * resolving with the call's outcome (its text, structured output, images and details, or the
 * failure and its message: runtime/types.ts InvokeResult), which the shim turns into its harness's
 * native result; `script` names the script as the shim's target has a generated file name it
 * (`Target.scriptFrom`, `Target.scriptUrl`: relative to the shim file, or in a user's home to the home
 * folder), so the harness's working directory does not matter.
 *
 * - `process` (default): spawns `node <script> --json --envelope 1`, writes the input to stdin and
 *   reads the result envelope from stdout (see ENVELOPE_VERSION); a script that exits without one
 *   (it crashed) rejects with its stderr; the abort signal kills the process; `oac:progress` lines
 *   on stderr go to `call.progress`. Every call pays a Node start, and a tool cannot hurt the harness.
 * - `inline`: imports the script module once and calls its `invoke(input, options)` inside the
 *   harness's own process (Bun for opencode and omp, Node for pi), which gives the same outcome: no
 *   process per call, but the tool shares the harness's memory, globals and event loop, runs on the
 *   harness's runtime, and can only be cancelled cooperatively through the signal.
 */

/** The marker a script writes before each progress line on stderr (runtime contract with the bundler). */
export const PROGRESS_PREFIX = 'oac:progress '

/** The import lines the bridge needs, for the top of the shim file. */
export function bridgeImports(plan: Plan): string[] {
  const spawns = plan.bridge === 'inline' ? [] : [`import { spawn } from "node:child_process"`, `import { createInterface } from "node:readline"`, `import { fileURLToPath } from "node:url"`]
  return [...spawns, ...targetOf(plan).scriptUrlImports]
}

/** The `ToolCall` and `ToolOutcome` types and the `runTool` function, for the bottom of the shim file. */
export function bridgeCode(plan: Plan): string {
  const types = [
    '/** What the harness gives one tool call: where it runs, how to cancel it, where progress goes. */',
    'interface ToolCall {',
    '  cwd: string',
    '  signal: AbortSignal | undefined',
    '  progress(message: string): void',
    '}',
    '',
    `/** One call's outcome, as the tool script gives it (result envelope ${ENVELOPE_VERSION}, without its version). */`,
    'type ToolOutcome =',
    '  | { ok: true; text: string; structured?: unknown; images?: Array<{ data: string; mimeType: string }>; details?: unknown }',
    '  | { ok: false; kind: "invalid-input" | "tool-error"; message: string; details?: unknown }',
  ].join('\n')
  return `${types}\n\n${plan.bridge === 'inline' ? inlineBridge(plan) : processBridge(plan)}\n`
}

function processBridge(plan: Plan): string {
  return `const PROGRESS = ${jsString(PROGRESS_PREFIX)}

/** Runs a tool script with the input as JSON on stdin: resolves with the outcome its result envelope holds, rejects with its stderr when it has none. */
function runTool(script: string, input: unknown, call: ToolCall): Promise<ToolOutcome> {
  return new Promise((resolve, reject) => {
    const path = fileURLToPath(${targetOf(plan).scriptUrl('script')})
    const child = spawn("node", [path, "--json", "--envelope", ${jsString(ENVELOPE_VERSION)}], { cwd: call.cwd, signal: call.signal })
    let stdout = ""
    const errors: string[] = []
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    createInterface({ input: child.stderr }).on("line", (line) => {
      try {
        if (line.startsWith(PROGRESS)) return call.progress(String(JSON.parse(line.slice(PROGRESS.length)).message))
      } catch {
        // A malformed progress line is reported with the error text below.
      }
      errors.push(line)
    })
    child.on("error", reject)
    child.on("close", (code, signal) => {
      const outcome = envelopeOutcome(stdout)
      if (outcome) resolve(outcome)
      else reject(new Error(errors.join("\\n") || \`\${script} exited with \${code ?? signal}\`))
    })
    // The script may exit before reading its input (aborted, crashed): its exit status tells, not EPIPE.
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })
}

/** The outcome a script's stdout holds: one line of JSON, its result envelope, or undefined for anything else. */
function envelopeOutcome(stdout: string): ToolOutcome | undefined {
  try {
    const { envelope, ...outcome } = JSON.parse(stdout)
    return envelope === ${Number(ENVELOPE_VERSION)} ? outcome : undefined
  } catch {
    return undefined
  }
}`
}

function inlineBridge(plan: Plan): string {
  const env = objectLiteral(plan.env.map((name) => [name, `process.env[${jsString(name)}]`] as const))
  return `/** The in-process entry every bundled tool script exports. */
interface ToolModule {
  invoke(
    input: unknown,
    options: { signal: AbortSignal; cwd: string; env: Record<string, string | undefined>; progress(message: string): void },
  ): Promise<ToolOutcome>
}

/** Runs a tool in this process through its bundled script's \`invoke\`: resolves with the call's outcome. */
async function runTool(script: string, input: unknown, call: ToolCall): Promise<ToolOutcome> {
  const entry: ToolModule = await import(${targetOf(plan).scriptUrl('script')}.href)
  return entry.invoke(input, {
    signal: call.signal ?? new AbortController().signal,
    cwd: call.cwd,
    env: ${env.replace(/\n/g, '\n    ')},
    progress: call.progress,
  })
}`
}

/**
 * `contentBlocks(outcome)`, for the shims of harnesses whose results are content blocks (pi,
 * oh-my-pi): the text, or a failed call's message, then the images (an image alone has no empty
 * text block before it).
 */
export function contentBlocksCode(): string {
  return `/** The outcome as content blocks: its text (or a failed call's message), then its images. */
function contentBlocks(outcome: ToolOutcome) {
  const text = outcome.ok ? outcome.text : outcome.message
  const images = outcome.ok ? (outcome.images ?? []) : []
  return [
    ...(text === "" && images.length > 0 ? [] : [{ type: "text" as const, text }]),
    ...images.map((image) => ({ type: "image" as const, data: image.data, mimeType: image.mimeType })),
  ]
}
`
}

/**
 * The one-line note naming the definitions a generated file came from (line breaks removed). It
 * names their files, never their lines: a moved import must not change every generated file.
 */
export function generatedNote(what: string): string {
  return jsLineComment(`Generated by unplugin-oac from ${what}. Edit the definition, not this file.`)
}

/** The one-line header of a generated TypeScript file. */
export function generatedHeader(what: string): string {
  return `// ${generatedNote(what)}`
}
