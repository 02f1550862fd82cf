import { USER_DATA_FOLDER } from '../compile/target.js'
import type { Diagnostic } from '../diagnostics.js'
import type { MergeFile, OutputFile } from '../emit/types.js'
import { findSecrets, type SecretFinding } from '../secrets.js'
import { lineColumn } from './merge-common.js'

/**
 * Secrets must reach tool processes through the environment (declared by name in the config's
 * `env`), never as literals in generated files, which get committed and shared. This scan runs
 * over every generated text file before anything is written; bundled `scripts/` are skipped
 * (minified code is full of hashes and random-looking identifiers).
 */

/** Bundled scripts are minified code, not configuration: not scanned (a project's `scripts/`, a home's scripts folder). */
function scanned(path: string): boolean {
  return !path.startsWith('scripts/') && !path.startsWith(`${USER_DATA_FOLDER}/`)
}

/** Diagnostics for secrets in an owned file's content, or in our entries of a merged file. */
export function secretDiagnostics(file: OutputFile, displayPath: string, mergedText?: string): Diagnostic[] {
  if (!scanned(file.path)) return []
  const findings = file.kind === 'owned' ? locate(file.content, findSecrets(file.content)) : mergeFindings(file, mergedText ?? '')
  return findings.map(({ finding, line, column }) => ({
    severity: 'error',
    code: 'secret-literal',
    file: displayPath,
    line,
    column,
    message: `${preview(finding.match)} looks like ${finding.kind}, written literally into a generated file; nothing was written.`,
    fix:
      "Don't put secrets in definitions or configs: declare the variable by name in the config's env (e.g. env: ['MY_TOKEN']) " +
      'so each harness passes it from the environment, and read it from ctx.env in the tool. If it is not a secret, change the value so it does not look like one.',
  }))
}

interface Located {
  finding: SecretFinding
  line?: number
  column?: number
}

function locate(text: string, findings: SecretFinding[]): Located[] {
  return findings.map((finding) => ({ finding, ...lineColumn(text, finding.offset) }))
}

/** Only our entries are scanned (the rest of the file is the user's); lines point into the merged text. */
function mergeFindings(file: MergeFile, mergedText: string): Located[] {
  return file.entries.flatMap((entry) =>
    findSecrets(JSON.stringify({ [entry.keyPath.join('.')]: entry.value }, null, 2)).map((finding) => {
      const at = mergedText.indexOf(finding.match)
      return at === -1 ? { finding } : { finding, ...lineColumn(mergedText, at) }
    }),
  )
}

/** Enough of the value to find it, not enough to leak it in build logs. */
function preview(match: string): string {
  return `"${match.slice(0, 6)}…" (${match.length} characters)`
}
