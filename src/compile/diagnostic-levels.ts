import { DIAGNOSTIC_LEVELS, type DiagnosticLevel, type RegistryDefinition } from '../define/types.js'
import { DIAGNOSTIC_CODES } from '../diagnostic-codes.js'
import type { Findings } from './findings.js'
import type { DiagnosticLevels } from './plan.js'

/**
 * The level of each warning code a team has read: the config profile's `diagnostics`, then the
 * driver's (`--diagnostic`, the plugin's `diagnostics` option), which win code by code. A code no
 * build reports is a warning naming the nearest known code; a code that is an error stays an error
 * (a warning says so). Returns the codes turned off or down to a note, absent when none.
 */
export function resolveDiagnosticLevels(profile: unknown, given: unknown, config: string, registry: RegistryDefinition, findings: Findings): DiagnosticLevels | undefined {
  const levels: Record<string, Exclude<DiagnosticLevel, 'warning'>> = {}
  const sources = [
    { origin: `Config "${config}"'s diagnostics`, value: profile, at: registry.source },
    { origin: 'The diagnostics option', value: given, at: undefined },
  ]
  for (const { origin, value, at } of sources) {
    if (value === undefined) continue
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      findings.error('config-diagnostics-invalid', `${origin} is not an object.`, "Map codes to levels, e.g. diagnostics: { 'tools-not-scoped': 'off', 'command-agent-unsupported': 'note' }.", at)
      continue
    }
    for (const [code, level] of Object.entries(value)) {
      if (!(DIAGNOSTIC_LEVELS as readonly unknown[]).includes(level)) {
        findings.error('config-diagnostics-invalid', `${origin} sets "${code}" to ${JSON.stringify(level)}, which is not a level.`, `Use one of: ${DIAGNOSTIC_LEVELS.map((name) => `'${name}'`).join(', ')}.`, at)
        continue
      }
      const severity = DIAGNOSTIC_CODES.get(code)
      if (severity === undefined) {
        const nearest = nearestCode(code)
        findings.warning('diagnostic-code-unknown', `${origin} names "${code}", which is no diagnostic code of unplugin-oac; it changes nothing.`, `${nearest ? `Did you mean "${nearest}"? ` : ''}The code is the word in brackets a diagnostic prints, e.g. [tools-not-scoped].`, at)
        continue
      }
      if (severity === 'error') {
        if (level !== 'warning') {
          findings.warning('diagnostic-error-kept', `${origin} sets "${code}" to '${level}', but "${code}" is an error, and errors stay errors: the build still stops at it.`, `Take "${code}" out of ${origin.replace(/^The /, 'the ')}, and fix what it reports.`, at)
        }
        continue
      }
      if (level === 'warning') delete levels[code]
      else levels[code] = level as Exclude<DiagnosticLevel, 'warning'>
    }
  }
  return Object.keys(levels).length > 0 ? Object.fromEntries(Object.entries(levels).sort(([a], [b]) => (a < b ? -1 : 1))) : undefined
}

/** The known code closest to a misspelt one (by edit distance), when one is close enough to be meant. */
function nearestCode(code: string): string | undefined {
  let best: { code: string; distance: number } | undefined
  for (const known of DIAGNOSTIC_CODES.keys()) {
    const distance = editDistance(code, known)
    if (!best || distance < best.distance) best = { code: known, distance }
  }
  return best && best.distance <= Math.max(2, Math.floor(code.length / 3)) ? best.code : undefined
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length] as number
}
