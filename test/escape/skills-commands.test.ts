import { resolve } from 'node:path'
import { transform } from 'esbuild'
import fc from 'fast-check'
import { load as loadJsYaml } from 'js-yaml'
import { parse as parseToml } from 'smol-toml'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
// pi's own functions (its package does not export them; the file is the one the CLI runs).
import { parseCommandArgs, substituteArgs } from '../../node_modules/@mariozechner/pi-coding-agent/dist/core/prompt-templates.js'
import { ARGS_PLACEHOLDER, commandFiles, commandProblem } from '../../src/compile/commands.js'
import { compilePlan } from '../../src/compile/index.js'
import { CLAUDE_SYNTAX } from '../../src/compile/harnesses/text-syntax.js'
import type { Plan } from '../../src/compile/plan.js'
import { unescapable } from '../../src/compile/skills.js'
import { HARNESSES } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import type { OwnedFile } from '../../src/emit/types.js'
import { loadRegistry } from '../../src/load/index.js'
import { repoRoot } from '../util/project.js'
import { hostileString } from './hostile.js'

/*
 * Hostile strings in a skill's description, instructions and extra file, and a command's
 * description, argument hint, prompt and arguments, through every format a skill or command is
 * written in: each parses back exactly (YAML with the `yaml` library and js-yaml, TOML), and, where
 * compile finds nothing to report, each harness's own filling of the arguments (its code, or a
 * transcription of it) gives exactly the prompt with the arguments in place of {{args}}.
 */

const RUNS = Number(process.env.OAC_SKILL_RUNS ?? 300)

let base: Plan
beforeAll(async () => {
  const root = resolve(repoRoot, 'test/fixtures/skills-commands')
  base = compilePlan(await loadRegistry('agents/registries.ts:valid', root), { root, harnesses: [...HARNESSES] }).plan!
})

const text = hostileString.filter((s) => s.length < 2_000 && s.trim() !== '')
/** Text as readers keep it: no edge whitespace (Markdown bodies are trimmed), no carriage return (line ends are normalised). */
const body = text.map((s) => s.replace(/\r/g, '').trim()).filter((s) => s !== '')
/** Text some harness reads as its own syntax: placeholders, shell and file injections, escapes, template tags, its markers. */
const SYNTAX = ['$1', '$0', '$12', '$ARGUMENTS', '$ARGUMENTS[0]', '$@', '$@[1]', '${@:2}', '!{ls}', '@{a.md}', '{{', '}}', '!`ls`', ' !`ls`', '```!', '\\', '\\$1', '$', '${input:x}', '${file}', '\uFFFF']
const syntaxText = fc.array(fc.oneof(body, fc.constantFrom(...SYNTAX)), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''))
// At least one {{args}}: without one, each harness adds the arguments its own way (appended, or dropped by pi).
const prompt = fc
  .array(syntaxText, { minLength: 2, maxLength: 4 })
  .map((pieces) => pieces.join(ARGS_PLACEHOLDER).trim())
  .filter((s) => s.includes(ARGS_PLACEHOLDER))
/**
 * What the user types after the command: one line, as a command line has, and no `$` (Gemini CLI, Qwen
 * Code and opencode fill the arguments in with a JavaScript string replacement, which reads `$$` and
 * `$&` in them as its own patterns: their handling of the user's text, not of ours).
 */
const args = body.map((s) => s.replace(/\n/g, ' ').replace(/\$/g, '').trim()).filter((s) => s !== '')

function withHostile(plan: Plan, strings: { description: string; instructions: string; file: string; prompt: string; hint: string }): Plan {
  const [skill] = plan.skills!
  const [command] = plan.commands!
  return {
    ...plan,
    skills: [{ ...skill!, description: strings.description, instructions: strings.instructions, files: { 'templates/report.md': strings.file } }],
    commands: [{ ...command!, description: strings.description, prompt: strings.prompt, argumentHint: strings.hint }],
  }
}

function split(file: OwnedFile): { frontmatter: string; body: string } {
  const close = file.content.indexOf('\n---\n', 3)
  expect(file.content.startsWith('---\n')).toBe(true)
  expect(close).toBeGreaterThan(0)
  expect(file.content.slice(close + 5, close + 6)).toBe('\n')
  return { frontmatter: file.content.slice(4, close + 1), body: file.content.slice(close + 6).replace(/\n$/, '') }
}

/** Both YAML readers the harnesses use (the `yaml` library; js-yaml in Gemini CLI) read the frontmatter back the same. */
function frontmatterOf(text: string): Record<string, unknown> {
  const read = parseYaml(text) as Record<string, unknown>
  expect(loadJsYaml(text)).toEqual(read)
  return read
}

/** Claude Code's `\$` escape read back (its `(?<!\\)\\\$(?=...)` before `$ARGUMENTS` and digits). */
const claudeUnescape = (written: string) => written.replace(/(?<!\\)\\\$(?=\d|ARGUMENTS)/g, '$')

/**
 * Claude Code 2.1.332 filling a command's arguments: a transcription of its own function (the one that
 * throws "This skill, command or hook and the arguments filled into it add up to more than...").
 */
function claudeFill(written: string, argText: string): string {
  const LQ = '\uFFFF'
  const UE = '\uFFFE'
  const wrap = (value: string) => UE + value.replaceAll(LQ, '\uFFFD').replaceAll(UE, '\uFFFD').replaceAll('$', LQ) + UE
  const argv = argText.split(/\s+/).filter(Boolean)
  let used = false
  let e = written.replaceAll(LQ, '\uFFFD').replaceAll(UE, '\uFFFD')
  e = e.replace(/(?<!\\)\\\$(?=\d|ARGUMENTS)/g, LQ)
  e = e.replace(/\$ARGUMENTS\[(\d+)\]/g, (match, i: string) => (argv[Number(i)] === undefined ? LQ + match.slice(1) : ((used = true), wrap(argv[Number(i)]!))))
  e = e.replace(/\$(\d+)(?!\w)/g, (match, i: string) => (argv[Number(i)] === undefined ? match : ((used = true), wrap(argv[Number(i)]!))))
  e = e.replaceAll('$ARGUMENTS', () => ((used = true), wrap(argText)))
  if (!used && argText) e += `\n\nARGUMENTS: ${wrap(argText)}`
  return e.replaceAll(LQ, '$').replaceAll(UE, '')
}

/** opencode 1.18 (and Kilo) filling a command: `$n` from its split of the arguments, then `$ARGUMENTS` (its `SessionPrompt.command`). */
function opencodeFill(written: string, argText: string): string {
  const argv = (argText.match(/(?:\[Image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+)/gi) ?? []).map((arg) => arg.replace(/^["']|["']$/g, ''))
  const last = Math.max(0, ...[...written.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])))
  const filled = written.replaceAll(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1
    if (i >= argv.length) return ''
    return Number(n) === last ? argv.slice(i).join(' ') : argv[i]!
  })
  return filled.replaceAll('$ARGUMENTS', argText)
}

/** oh-my-pi 18.2: pi's placeholders (`$@[n]` too), then a Handlebars-like render, which any `{{` changes. */
function ompFill(written: string, argText: string): string | undefined {
  if (written.includes('{{')) return undefined
  const argv = parseCommandArgs(argText)
  return written.replace(/\$@\[(\d+)(?::(\d*)?)?\]|\$ARGUMENTS|\$@|\$(\d+)/g, (_match, start?: string, _length?: string, n?: string) => {
    if (n !== undefined) return argv[Number(n) - 1] ?? ''
    if (start !== undefined) return argv.slice(Number(start) - 1).join(' ')
    return argv.join(' ')
  })
}

/** Gemini CLI 0.61 and Qwen Code: `{{args}}` replaced by the raw arguments; `!{` and `@{` make it something else. */
const geminiFill = (written: string, argText: string) => (written.includes('!{') || written.includes('@{') ? undefined : written.replaceAll('{{args}}', argText))

/** VS Code (not run here: no VS Code on the machine): `${input:args}` from the user's input; any other `${...}` is a variable it fills. */
function vscodeFill(written: string, argText: string): string | undefined {
  let other = false
  const filled = written.replace(/\$\{([^}]*)\}/g, (match, name: string) => (name === 'input:args' ? argText : ((other = true), match)))
  return other ? undefined : filled
}

/** The arguments as pi and oh-my-pi fill them in: split as a shell would (quotes taken off), joined by spaces. */
const piArguments = (argText: string) => parseCommandArgs(argText).join(' ')
const raw = (argText: string) => argText

/**
 * How each command file's reader fills the arguments into what we wrote (undefined: it would do more
 * than that), and what it fills in for them.
 */
const FILL: Record<string, { fill: (written: string, argText: string) => string | undefined; argsAs: (argText: string) => string }> = {
  '.claude/commands/': { fill: claudeFill, argsAs: raw },
  '.opencode/command/': { fill: opencodeFill, argsAs: raw },
  '.kilo/command/': { fill: opencodeFill, argsAs: raw },
  '.gemini/commands/': { fill: geminiFill, argsAs: raw },
  '.qwen/commands/': { fill: geminiFill, argsAs: raw },
  // pi's own code, from its package.
  '.pi/prompts/': { fill: (written, argText) => substituteArgs(written, parseCommandArgs(argText)), argsAs: piArguments },
  '.omp/commands/': { fill: ompFill, argsAs: piArguments },
  '.github/prompts/': { fill: vscodeFill, argsAs: raw },
  // Cline 3.0.65: `/forecast <text>` sends the workflow's text as written (trimmed), no placeholder filled, and the text after it.
  '.cline/workflows/': { fill: (written) => written, argsAs: () => 'the text at the end of this message' },
}

describe('skills and commands with hostile text', () => {
  it(`every format reads back exactly (${RUNS} cases)`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, text, text, async (description, instructions, file, promptText, hint) => {
        const plan = withHostile(base, { description, instructions, file, prompt: promptText, hint })
        const files = emitAll(plan).filter((f): f is OwnedFile => f.kind === 'owned' && /\/(?:skills|commands?|prompts|workflows)\//.test(f.path) && !f.path.startsWith('prompts/'))
        const shared = files.find((f) => f.path === '.agents/skills/weather-reports/SKILL.md')!
        for (const f of files) {
          if (f.path.endsWith('.mjs')) {
            await transform(f.content, { loader: 'js', format: 'esm' })
          } else if (f.path.endsWith('/templates/report.md')) {
            expect(f.content).toBe(file)
          } else if (f.path.endsWith('.toml')) {
            expect(parseToml(f.content)).toEqual({ description, prompt: promptText })
          } else if (f.path.endsWith('agents/openai.yaml')) {
            expect(parseYaml(f.content)).toEqual({ policy: { allow_implicit_invocation: false } })
          } else {
            const { frontmatter, body: written } = split(f)
            const read = frontmatterOf(frontmatter)
            expect(read.description, f.path).toBe(description)
            if (f === shared) expect(written.startsWith(instructions.trimEnd())).toBe(true)
            // Claude Code's copy, escaped: the same text once Claude Code reads it, where compile accepts the instructions.
            else if (f.path.endsWith('/SKILL.md') && f.path.includes('weather-reports')) {
              if (unescapable(instructions, CLAUDE_SYNTAX) === undefined) expect(claudeUnescape(written)).toBe(split(shared).body)
            } else if (read['argument-hint'] !== undefined) expect(read['argument-hint'], f.path).toBe(hint)
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it(`where compile reports nothing, each harness fills the arguments into exactly our prompt (${RUNS} cases)`, { timeout: 600_000 }, async () => {
    let filled = 0
    await fc.assert(
      fc.asyncProperty(prompt, args, async (promptText, argText) => {
        const plan = withHostile(base, { description: 'd', instructions: 'i', file: 'f', prompt: promptText, hint: 'h' })
        const files = emitAll(plan)
        for (const { file } of commandFiles(HARNESSES)) {
          if (file.format === 'skill' || commandProblem(promptText, file, 'forecast')) continue
          const path = file.path('forecast')
          const { fill, argsAs } = FILL[path.slice(0, path.lastIndexOf('/') + 1)]!
          const written = files.find((f) => f.path === path) as OwnedFile
          const text = path.endsWith('.toml') ? (parseToml(written.content) as { prompt: string }).prompt : split(written).body
          expect(fill(text, argText), path).toBe(promptText.replaceAll(ARGS_PLACEHOLDER, () => argsAs(argText)))
          filled++
        }
      }),
      { numRuns: RUNS },
    )
    expect(filled).toBeGreaterThan(RUNS)
  })

  it("Claude Code's escape: SKILL.md text compile accepts reads back as written", () => {
    fc.assert(
      fc.property(syntaxText, (instructions) => {
        fc.pre(unescapable(instructions, CLAUDE_SYNTAX) === undefined)
        expect(claudeUnescape(CLAUDE_SYNTAX.escape!(instructions))).toBe(instructions)
        expect(claudeFill(CLAUDE_SYNTAX.escape!(instructions), '')).toBe(instructions)
      }),
      { numRuns: RUNS * 10 },
    )
  })
})
