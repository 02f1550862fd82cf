/**
 * The first module a tool script loads (`scripts/<tool>.mjs`), kept free of imports: what it enables
 * applies only to modules compiled after it runs, so the tool's code, zod and the runtime are
 * imported after it, by `startToolScript`.
 *
 * The runtime takes Node's built-ins with `process.getBuiltinModule`, not `import`: an ES module's
 * import of a built-in makes Node build that module's ES facade, which reads every export (for
 * node:fs that loads fs/promises, file streams and readline; for node:util, worker_threads), work
 * that a tool call would pay for on every start.
 */
const { realpathSync } = process.getBuiltinModule('node:fs')
const { fileURLToPath } = process.getBuiltinModule('node:url')

/** What the code file of a tool (`scripts/tools/<tool>.mjs`) exports. */
export interface ToolCode {
  tool: unknown
  invoke: (...args: never[]) => unknown
  /** The tool's command line; never returns. */
  runCli(): Promise<never>
}

/**
 * True when the module at `moduleUrl` is the file node was started with. Realpaths make a symlinked
 * or relative launch path count too.
 */
export function isMainModule(moduleUrl: string): boolean {
  const launched = process.argv[1]
  if (!launched) return false
  try {
    return realpathSync(launched) === realpathSync(fileURLToPath(moduleUrl))
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
export async function startToolScript(scriptUrl: string, load: () => Promise<ToolCode>): Promise<ToolCode> {
  const main = isMainModule(scriptUrl)
  if (main) enableRunSupport()
  const code = await load()
  if (main) await code.runCli()
  return code
}

/** The compile cache and, with OAC_DEBUG set, source maps: for a process that runs generated scripts (a tool script, the MCP server). */
export function enableRunSupport(): void {
  // Typed here: @types/node for Node 20 (the oldest Node supported) does not declare it.
  ;(process.getBuiltinModule('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache?.()
  if (process.env.OAC_DEBUG) process.setSourceMapsEnabled(true)
}
