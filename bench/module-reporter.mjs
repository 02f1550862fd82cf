// Preloaded with `node --import` into one run of a hook script, for hook_start_vs_node's detail: at exit
// it reports on stderr how many ES modules the process loaded from files after it (the script's, not
// Node's built-ins). Node 22.15 and later (module.registerHooks); on an older Node it reports nothing.
import module from 'node:module'

if (typeof module.registerHooks === 'function') {
  let loaded = 0
  module.registerHooks({
    load(url, context, nextLoad) {
      if (url.startsWith('file:')) loaded++
      return nextLoad(url, context)
    },
  })
  process.on('exit', () => {
    process.stderr.write(`\noac-bench:modules ${loaded}\n`)
  })
}
