/**
 * The first module a tool script loads (`scripts/<tool>.mjs`), kept free of imports: what it enables
 * applies only to modules compiled after it runs, so the tool's code, zod and the runtime are
 * imported after it, by `startToolScript`. (Its imports below are types only.) A hook script starts
 * the same way, with the hook runtime (hook-start.ts) inside it.
 *
 * The runtime takes Node's built-ins with `process.getBuiltinModule`, not `import`: an ES module's
 * import of a built-in makes Node build that module's ES facade, which reads every export (for
 * node:fs that loads fs/promises, file streams and readline; for node:util, worker_threads), work
 * that a tool call would pay for on every start.
 */
import type { AnyToolDefinition } from '../define/types.js'
import type { InputCheck } from './invoke.js'
import type * as ScriptRuntimeModule from './script.js'
import type { ToolScriptSpec } from './tool-cli.js'
import type { InvokeOptions, InvokeResult } from './types.js'

type ScriptRuntime = typeof ScriptRuntimeModule

const { realpathSync } = process.getBuiltinModule('node:fs')

/** A file URL's path. node:url only where a URL's path is not one (Windows): node compiles that module the first time it is taken. */
function pathOf(url: string): string {
  return process.platform === 'win32' ? process.getBuiltinModule('node:url').fileURLToPath(url) : decodeURIComponent(new URL(url).pathname)
}

/** What `scripts/<tool>.mjs` hands `startToolScript`: the tool's identity, and how to load its code. */
export interface ToolScript {
  /** The module that defines the tool, relative to the project root, for the message when it does not. */
  source: string
  spec: ToolScriptSpec
  /**
   * Imports the tool's code file (`scripts/tools/<tool>.mjs`: its module, bundled), the runtime
   * (vendor `script.mjs`) and the input check of its schema package, all after the launcher has run.
   */
  load: () => Promise<[code: object, runtime: ScriptRuntime, check: { checkInput: InputCheck }]>
}

/** What a tool script exports, imported: the tool and the inline bridge's call. */
export interface StartedTool {
  tool: AnyToolDefinition
  invoke: (input: unknown, options: InvokeOptions) => Promise<InvokeResult>
}

/**
 * True when the module at `moduleUrl` is the file node was started with. Realpaths make a symlinked
 * or relative launch path count too.
 */
export function isMainModule(moduleUrl: string): boolean {
  const launched = process.argv[1]
  if (!launched) return false
  try {
    return realpathSync(launched) === realpathSync(pathOf(moduleUrl))
  } catch {
    return false
  }
}

/**
 * Started by node (`scriptUrl` is the main module): turns on Node's compile cache (Node 22.1 and
 * later; its folder is Node's default in the OS temp folder, or NODE_COMPILE_CACHE), and with
 * OAC_DEBUG set, source maps, so a stack names the tool's own source file and line; then loads the
 * code and runs its command line. Imported (the MCP server, an inline bridge), it only loads the
 * code: the importing process keeps its own settings.
 */
export async function startToolScript(scriptUrl: string, { source, spec, load }: ToolScript): Promise<StartedTool> {
  const main = isMainModule(scriptUrl)
  if (main) enableRunSupport()
  const [code, runtime, { checkInput }] = await load()
  const tool = runtime.pickTool(code, spec.name, source)
  if (main) await runtime.runToolCli(tool, spec, checkInput)
  return { tool, invoke: (input, options) => runtime.invokeTool(tool, input, options, checkInput) }
}

/** The compile cache and, with OAC_DEBUG set, source maps: for a process that runs generated scripts (a tool or hook script, the MCP server). */
export function enableRunSupport(): void {
  // Typed here: @types/node for Node 20 (the oldest Node supported) does not declare it.
  ;(process.getBuiltinModule('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache?.()
  if (process.env.OAC_DEBUG) process.setSourceMapsEnabled(true)
}
