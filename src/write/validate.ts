import { isAbsolute } from 'node:path'
import type { Diagnostic } from '../diagnostics.js'
import type { OutputFile } from '../emit/types.js'

/** Problems with the emitted files themselves (their paths) and with the owner's name: any of them is our bug or a bad server name, and nothing is written. */
export function validateOutputs(files: OutputFile[], owner: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = []
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(owner)) {
    diagnostics.push({
      severity: 'error',
      code: 'owner-invalid',
      message: `The server name "${owner}" cannot name a manifest file.`,
      fix: 'Use letters, digits, ".", "_" and "-" only in the server name.',
    })
  }
  const seen = new Set<string>()
  for (const file of files) {
    const segments = file.path.split('/')
    const valid =
      file.path !== '' &&
      !file.path.includes('\\') &&
      !file.path.includes('\0') &&
      !isAbsolute(file.path) &&
      !/^[A-Za-z]:/.test(file.path) &&
      segments.every((s) => s !== '' && s !== '.' && s !== '..') &&
      segments[0] !== '.oac'
    if (!valid) {
      diagnostics.push({
        severity: 'error',
        code: 'output-path-invalid',
        message: `Generated file path "${file.path}" is not a plain relative path inside the target.`,
        fix: 'This is a bug in an unplugin-oac emitter: please report it.',
      })
    } else if (seen.has(file.path)) {
      diagnostics.push({
        severity: 'error',
        code: 'output-path-duplicate',
        message: `Two generated files have the same path "${file.path}".`,
        fix: 'Give the tools or agents that produce it different names.',
      })
    }
    seen.add(file.path)
  }
  return diagnostics
}

