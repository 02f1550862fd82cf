import type { SourceLocation } from './tool-types.js'

/**
 * The location of the code that called a define function, read from the call stack.
 * `depth` counts frames above this function: 2 is the caller of the define function.
 * Inside a bundled registry it names the bundle; the loader maps it back to the user's file.
 */
export function callerLocation(depth = 2): SourceLocation {
  const previousLimit = Error.stackTraceLimit
  const previousPrepare = Error.prepareStackTrace
  // The call sites themselves rather than the formatted stack text: formatting was a sixth of the
  // time to import a registry of 1,000 tools.
  const holder: { stack?: NodeJS.CallSite[] } = {}
  try {
    Error.stackTraceLimit = depth
    Error.prepareStackTrace = (_, sites) => sites
    Error.captureStackTrace(holder, callerLocation)
    // Read while our prepareStackTrace is in place: V8 prepares the stack on first access.
    const site = holder.stack?.[depth - 1]
    const file = site?.getFileName()
    if (!site || !file) return { file: '<unknown>', line: 0, column: 0 }
    return {
      file: file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file,
      line: site.getLineNumber() ?? 0,
      column: site.getColumnNumber() ?? 0,
    }
  } finally {
    Error.stackTraceLimit = previousLimit
    Error.prepareStackTrace = previousPrepare
  }
}
