/** What a hook script (`scripts/hooks/<hook>.mjs`) imports of the runtime, built into one vendor file for every hook. */
export { pickHook, runHook } from './hook.js'
export { runHookCli } from './hook-cli.js'
