import { posix } from 'node:path'
import type { Plan, PlannedTool } from '../../compile/plan.js'
import { jsLineComment, jsString } from './escape.js'
import { objectLiteral } from './js-literal.js'

/**
 * The bridge from a native shim (opencode tool, pi extension, oh-my-pi tool) to a bundled tool
 * script, generated once per shim file. Both flavours define the same function,
 *
 *   runTool(script: string, input: unknown, call: ToolCall): Promise<string>
 *
 * resolving with the tool's output text and rejecting with its error message; `script` is
 * relative to the shim file (import.meta.url), so the harness's working directory does not matter.
 *
 * - `process` (default): spawns `node <script> --json`, writes the input to stdin, reads stdout;
 *   a non-zero exit rejects with stderr; the abort signal kills the process; `oac:progress` lines
 *   on stderr go to `call.progress`. Every call pays a Node start, and a tool cannot hurt the harness.
 * - `inline`: imports the script module once and calls its `invoke(input, options)` inside the
 *   harness's own process (Bun for opencode and omp, Node for pi): no process per call, but the tool
 *   shares the harness's memory, globals and event loop, runs on the harness's runtime, and can
 *   only be cancelled cooperatively through the signal.
 */

/** The marker a script writes before each progress line on stderr (runtime contract with the bundler). */
export const PROGRESS_PREFIX = 'oac:progress '

/** The import lines the bridge needs, for the top of the shim file. */
export function bridgeImports(plan: Plan): string[] {
  if (plan.bridge === 'inline') return []
  return [
    `import { spawn } from "node:child_process"`,
    `import { createInterface } from "node:readline"`,
    `import { fileURLToPath } from "node:url"`,
  ]
}

/** The `ToolCall` type and `runTool` function, for the bottom of the shim file. */
export function bridgeCode(plan: Plan): string {
  const toolCall = [
    '/** What the harness gives one tool call: where it runs, how to cancel it, where progress goes. */',
    'interface ToolCall {',
    '  cwd: string',
    '  signal: AbortSignal | undefined',
    '  progress(message: string): void',
    '}',
  ].join('\n')
  return `${toolCall}\n\n${plan.bridge === 'inline' ? inlineBridge(plan) : processBridge()}\n`
}

function processBridge(): string {
  return `const PROGRESS = ${jsString(PROGRESS_PREFIX)}

/** Runs a tool script with the input as JSON on stdin: resolves with its stdout, rejects with its stderr. */
function runTool(script: string, input: unknown, call: ToolCall): Promise<string> {
  return new Promise((resolve, reject) => {
    const path = fileURLToPath(new URL(script, import.meta.url))
    const child = spawn("node", [path, "--json"], { cwd: call.cwd, signal: call.signal })
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
      if (code === 0) resolve(stdout)
      else reject(new Error(errors.join("\\n") || \`\${script} exited with \${code ?? signal}\`))
    })
    // The script may exit before reading its input (aborted, crashed): its exit status tells, not EPIPE.
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })
}`
}

function inlineBridge(plan: Plan): string {
  const env = objectLiteral(plan.env.map((name) => [name, `process.env[${jsString(name)}]`] as const))
  return `/** The in-process entry every bundled tool script exports. */
interface ToolModule {
  invoke(
    input: unknown,
    options: { signal: AbortSignal; cwd: string; env: Record<string, string | undefined>; progress(message: string): void },
  ): Promise<{ ok: true; text: string } | { ok: false; message: string }>
}

/** Runs a tool in this process through its bundled script's \`invoke\`: resolves with its output, rejects with its error. */
async function runTool(script: string, input: unknown, call: ToolCall): Promise<string> {
  const entry: ToolModule = await import(new URL(script, import.meta.url).href)
  const result = await entry.invoke(input, {
    signal: call.signal ?? new AbortController().signal,
    cwd: call.cwd,
    env: ${env.replace(/\n/g, '\n    ')},
    progress: call.progress,
  })
  if (!result.ok) throw new Error(result.message)
  // The same text the script prints when run: the output, ending in a newline.
  return result.text === "" || result.text.endsWith("\\n") ? result.text : \`\${result.text}\\n\`
}`
}

/** The tool's script as a path relative to the shim file that runs it (both relative to the target). */
export function scriptFromShim(shimPath: string, tool: PlannedTool): string {
  const relative = posix.relative(posix.dirname(shimPath), tool.script)
  return relative.startsWith('.') ? relative : `./${relative}`
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
