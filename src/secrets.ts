/*
 * The shapes of secrets (known token formats, and random-looking values given secret-like or
 * environment-like names), shared by the compile step (a literal in an MCP server's definition) and
 * the write step (every generated text file, before anything is written).
 */

interface KnownPattern {
  kind: string
  pattern: RegExp
  /** Extra check on a match, to keep ordinary words out. */
  accept?: (match: string) => boolean
  /** Text every match contains: a text without it is not searched (the pattern is slow to fail). */
  requires?: string
}

const hasDigitAndLetter = (value: string): boolean => /\d/.test(value) && /[A-Za-z]/.test(value)

const KNOWN_PATTERNS: KnownPattern[] = [
  { kind: 'a private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, accept: (m) => !m.endsWith('EXAMPLE') },
  { kind: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g },
  { kind: 'a GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g },
  { kind: 'an Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'an OpenAI API key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, accept: hasDigitAndLetter },
  { kind: 'a Slack token', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g, accept: hasDigitAndLetter },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'a Stripe secret key', pattern: /\b[rs]k_live_[0-9A-Za-z]{16,}/g },
  { kind: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'a password in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"`]+:[^\s/@'"`$]{3,}@/gi, requires: '://' },
]

/**
 * Every known pattern without a `requires` text (none takes a flag but `g`), as one search: a text
 * where it finds nothing holds none of them, and most generated files hold none (one search instead
 * of ten over a 1,000-tool tree).
 */
const ANY_UNGUARDED = new RegExp(
  KNOWN_PATTERNS.filter((known) => known.requires === undefined)
    .map((known) => `(?:${known.pattern.source})`)
    .join('|'),
)

/**
 * A value assigned to an environment-variable-like or secret-like name: `API_KEY = "..."`,
 * `"token": "..."`, `password: ...` (TOML, JSON, YAML, TypeScript alike).
 */
// The lookbehind starts names at a word's first letter only: without it the engine retried every
// position inside long identifiers, a third of the scan's time on a 1,000-tool tree.
const ASSIGNMENT = /(["']?)(?<![A-Za-z_])([A-Za-z_][A-Za-z0-9_.-]*)\1[ \t]*[:=][ \t]*(["'`]?)([A-Za-z0-9+/=_.~-]{20,})\3/g
/** What every ASSIGNMENT match contains, found far faster: most generated files have none, and skip the full search. */
const ASSIGNED_VALUE = /[:=][ \t]*["'`]?[A-Za-z0-9+/=_.~-]{20}/
const SECRET_NAME = /secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth/i
const ENV_NAME = /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/

/** Bits per character: random keys score high, words and paths low. */
function entropy(value: string): number {
  const counts = new Map<string, number>()
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1)
  let bits = 0
  for (const count of counts.values()) {
    const p = count / value.length
    bits -= p * Math.log2(p)
  }
  return bits
}

function looksRandom(value: string): boolean {
  return value.length >= 20 && hasDigitAndLetter(value) && entropy(value) >= 3.5
}

export interface SecretFinding {
  kind: string
  /** The literal that looks like a secret. */
  match: string
  offset: number
}

export function findSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = []
  const overlaps = (offset: number, length: number): boolean =>
    findings.some((f) => offset < f.offset + f.match.length && f.offset < offset + length)
  const unguarded = ANY_UNGUARDED.test(text)
  for (const { kind, pattern, accept, requires } of KNOWN_PATTERNS) {
    if (requires === undefined ? !unguarded : !text.includes(requires)) continue
    for (const found of text.matchAll(pattern)) {
      if ((accept && !accept(found[0])) || overlaps(found.index, found[0].length)) continue
      findings.push({ kind, match: found[0], offset: found.index })
    }
  }
  const assignments = ASSIGNED_VALUE.test(text) ? text.matchAll(ASSIGNMENT) : []
  for (const found of assignments) {
    const name = found[2] as string
    const value = found[4] as string
    if (!SECRET_NAME.test(name) && !ENV_NAME.test(name)) continue
    const offset = found.index + found[0].lastIndexOf(value)
    if (!looksRandom(value) || overlaps(offset, value.length)) continue
    findings.push({ kind: `a high-entropy value for ${name}`, match: value, offset })
  }
  return findings.sort((a, b) => a.offset - b.offset)
}

/**
 * What a literal a definition gives under `name` (an environment variable's or a header's, absent for an
 * argument) looks like, when it looks like a secret: a known token's shape anywhere in it, or a random
 * value for a secret-like or environment-like name (after an `Authorization` scheme such as `Bearer`).
 */
export function literalSecretKind(name: string | undefined, value: string): string | undefined {
  const found = findSecrets(name === undefined ? value : `${name}=${JSON.stringify(value)}`)[0]
  if (found) return found.kind
  if (name === undefined || !(SECRET_NAME.test(name) || ENV_NAME.test(name))) return undefined
  const bare = value.replace(/^(?:Bearer|Basic|Token)\s+/i, '')
  return looksRandom(bare) ? `a high-entropy value for ${name}` : undefined
}
