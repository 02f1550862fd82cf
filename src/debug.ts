import { debuglog } from 'node:util'

// Named debug output through Node's own switch: `NODE_DEBUG=oac:*` turns on all of these,
// `NODE_DEBUG=oac:cache,oac:rebuild` some. Each line goes to stderr as `OAC:CACHE <pid>: ...`.

/** Build-cache hits and misses, and why a record was not used. */
export const debugCache = debuglog('oac:cache')
/** Why a build compiled again, or reused the last compile. */
export const debugRebuild = debuglog('oac:rebuild')
/** Each esbuild build of generated scripts and vendor files, and what it was for. */
export const debugBundle = debuglog('oac:bundle')
const stacks = debuglog('oac:stack')

/** True when diagnostics should keep the stack of where they were raised (for a bug report). */
export function showStacks(): boolean {
  return stacks.enabled
}
