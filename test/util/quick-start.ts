import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './project.js'

/*
 * The README's "Quick start" section read as steps, so that the tests that follow it do what it says
 * and nothing else: a README edit that breaks the quick start fails them.
 */

export type QuickStartStep =
  /** A line of an `sh` block: a command the user types. */
  | { kind: 'command'; command: string }
  /** A `ts` block whose first line names its file (`// agents/tools/forecast.ts`): the user writes it there. */
  | { kind: 'file'; path: string; text: string }
  /** A `console` block: `$ command`, then exactly what it prints. */
  | { kind: 'transcript'; command: string; output: string }
  /** A `json` block of settings, for the file in the home that the text before it names (`~/.claude/settings.json`). */
  | { kind: 'settings'; homeFile: string; json: unknown }

export interface QuickStart {
  steps: QuickStartStep[]
  /** The project paths its prose names (`.mcp.json`, `.claude/agents/planner.md`, `scripts/`): the compile must write each. */
  paths: string[]
  /** Its prose, code blocks left out. */
  prose: string
}

const HEADING = '## Quick start'

export function readQuickStart(readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')): QuickStart {
  const start = readme.indexOf(`\n${HEADING}\n`)
  if (start < 0) throw new Error(`README.md has no "${HEADING}" section`)
  const end = readme.indexOf('\n## ', start + HEADING.length + 2)
  const section = readme.slice(start + HEADING.length + 2, end < 0 ? undefined : end)

  const steps: QuickStartStep[] = []
  const proseParts: string[] = []
  const blocks = /^```(\w*)\n([\s\S]*?)^```$/gm
  let last = 0
  for (const match of section.matchAll(blocks)) {
    const before = section.slice(last, match.index)
    proseParts.push(before)
    last = match.index + match[0].length
    const [, lang, body] = match as unknown as [string, string, string]
    if (lang === 'sh') {
      for (const line of body.split('\n')) {
        const command = line.replace(/\s+#.*$/, '').trim()
        if (command) steps.push({ kind: 'command', command })
      }
    } else if (lang === 'ts') {
      const path = /^\/\/ (\S+)\n/.exec(body)?.[1]
      if (!path) throw new Error(`A ts block of the quick start does not name its file on its first line:\n${body}`)
      steps.push({ kind: 'file', path, text: body })
    } else if (lang === 'console') {
      const [first, ...output] = body.replace(/\n$/, '').split('\n')
      if (!first?.startsWith('$ ')) throw new Error(`A console block of the quick start does not start with "$ ":\n${body}`)
      steps.push({ kind: 'transcript', command: first.slice(2), output: `${output.join('\n')}\n` })
    } else if (lang === 'json') {
      const homeFile = [...before.matchAll(/`(~\/[^`]+)`/g)].at(-1)?.[1]
      if (!homeFile) throw new Error(`The text before a json block of the quick start names no file in the home (\`~/...\`):\n${before}`)
      steps.push({ kind: 'settings', homeFile, json: JSON.parse(body) })
    } else {
      throw new Error(`The quick start has a \`${lang}\` block, which its tests do not know how to follow`)
    }
  }
  proseParts.push(section.slice(last))
  const prose = proseParts.join('')
  // Backticked words of the prose that are paths in the project: a dotted name (`.mcp.json`) or a
  // relative path (`scripts/`); not a home path, a command or an option.
  const paths = [...new Set([...prose.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((word) => /^[\w.][\w.-]*(\/[\w.-]+)*\/?$/.test(word) && (word.includes('/') || /^\.\w/.test(word))))]
  return { steps, paths, prose }
}
