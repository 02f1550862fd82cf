/**
 * The hook runtime, whole: a hook script (`scripts/hooks/<hook>.mjs`) carries it in itself, built into
 * one function with all it uses (see bundle/vendor.ts `hookRuntime`), so that a hook's start loads two
 * modules, the script and the hook's code, rather than a runtime of several shared files. A harness
 * starts a command hook at every event it watches, and each ES module more is time before the answer.
 */
import type { AnyHookDefinition } from '../define/hooks.js'
import { pickHook, runHook } from './hook.js'
import { runHookCli } from './hook-cli.js'
import type { HookEventData, HookOutcome, HookSpec } from './hook-types.js'
import { enableRunSupport, isMainModule } from './start.js'

/** What `scripts/hooks/<hook>.mjs` hands `startHookScript`: the hook's identity, and how to load its code. */
export interface HookScript {
  /** The module that defines the hook, relative to the project root, for the message when it does not. */
  source: string
  spec: HookSpec
  /** Imports the hook's code file (`scripts/hooks/<hook>.code.mjs`: its module, bundled with the unplugin-oac functions it calls). */
  load: () => Promise<object>
}

/** What a hook script exports, imported (a generated plugin in the harness's process): the hook, and a run of it on one event. */
export interface StartedHook {
  hook: AnyHookDefinition
  handle(event: HookEventData): Promise<HookOutcome>
}

/**
 * Started by node as a harness's command (`scriptUrl` is the main module): turns on what applies to the
 * code loaded after it (see start.ts), loads the hook and answers the one event on stdin, then exits.
 * Imported, it only loads the hook. A hook that cannot be loaded fails as a hook that throws would:
 * exit code 2 blocks the call in every command harness, for a beforeTool hook that blocks on error; any
 * other goes on (exit code 0), its error on stderr.
 */
export async function startHookScript(scriptUrl: string, { source, spec, load }: HookScript): Promise<StartedHook> {
  const main = isMainModule(scriptUrl)
  if (main) enableRunSupport()
  let hook: AnyHookDefinition
  try {
    hook = pickHook(await load(), spec.name, source)
  } catch (error) {
    if (!main) throw error
    process.stderr.write(`The hook "${spec.name}" could not be loaded: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(spec.on === 'beforeTool' && spec.onError === 'block' ? 2 : 0)
  }
  if (main) await runHookCli(hook, spec)
  const env = Object.fromEntries(spec.env.map((name) => [name, process.env[name]]))
  return { hook, handle: (event) => runHook(hook, spec, event, env) }
}
