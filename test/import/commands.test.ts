import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { importProject, writeNewFiles } from '../../src/import/index.js'
import { project as inFolder, meaning, withoutManifest } from './project.js'

const project = (files: Record<string, string>) => inFolder('oac-import-commands-', files)

// Claude Code 2.1.332 counts words from 0: `$1` is the second word, `$ARGUMENTS[0]` the first.
const DEPLOY = '---\ndescription: Deploys a service.\nargument-hint: <service> <env>\nallowed-tools: Bash(kubectl:*)\nmodel: sonnet\n---\nDeploy $ARGUMENTS[0] to $1.\n'
const STATUS = '---\ndescription: Summarises the working tree.\n---\nHere is the state:\n!`git status --short`\n\nSummarise $ARGUMENTS.\n'
const NOTES = 'Write release notes for $ARGUMENTS.\n'

describe('oac import of commands with positional words, shell output and their own keys', () => {
  it('carries them, and compile writes each where the harness says it, the closest form, or leaves it out with a warning', async () => {
    const root = await project({ '.claude/commands/deploy.md': DEPLOY, '.claude/commands/status.md': STATUS, '.claude/commands/notes.md': NOTES })
    const result = await importProject(root, { from: ['claude'] })
    expect(result.notCarried.filter((item) => item.what.includes('command'))).toEqual([])
    const commands = Object.fromEntries(result.registry.commands.map((command) => [command.name, command]))
    expect(commands.deploy).toMatchObject({ prompt: 'Deploy {{arg1}} to {{arg2}}.', model: { claude: 'sonnet' }, harness: { claude: { 'allowed-tools': 'Bash(kubectl:*)' } } })
    expect(commands.status!.prompt).toBe('Here is the state:\n{{shell:git status --short}}\n\nSummarise {{args}}.')
    // No description is made up: the harnesses show the first line.
    expect(commands.notes!.description).toBeUndefined()

    await writeNewFiles(root, result.files, '')
    const compiled = await compile({ registry: 'agents/registry.ts:registry', root, target: 'back', harnesses: ['claude', 'opencode', 'gemini', 'pi', 'codex'] })
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const read = (path: string) => readFile(join(root, 'back', path), 'utf8')
    const exists = (path: string) => compiled.files.some((file) => file.path === path)

    // Claude Code: what the files said, field for field.
    expect(meaning(await read('.claude/commands/deploy.md'))).toEqual(meaning(DEPLOY.replace('$ARGUMENTS[0]', '$0')))
    expect(meaning(await read('.claude/commands/status.md'))).toEqual(meaning(STATUS))
    expect(meaning(await read('.claude/commands/notes.md'))).toEqual(meaning(NOTES))
    // opencode counts from 1, runs the same shell command, and keeps no Claude Code key.
    expect(meaning(await read('.opencode/command/deploy.md'))).toEqual({ data: { description: 'Deploys a service.' }, body: 'Deploy $1 to $2.' })
    expect(meaning(await read('.opencode/command/status.md')).body).toBe('Here is the state:\n!`git status --short`\n\nSummarise $ARGUMENTS.')
    // Gemini CLI runs `!{...}`, and has no word placeholders: deploy is left out, with the warning naming it.
    expect(String(parseToml(await read('.gemini/commands/status.toml')).prompt).trim()).toBe('Here is the state:\n!{git status --short}\n\nSummarise {{args}}.')
    expect(exists('.gemini/commands/deploy.toml')).toBe(false)
    // No description there either: Gemini CLI shows its own.
    const notes = parseToml(await read('.gemini/commands/notes.toml'))
    expect(Object.keys(notes)).toEqual(['prompt'])
    expect(String(notes.prompt).trim()).toBe('Write release notes for {{args}}.')
    // pi has `$1` but runs no shell command.
    expect(meaning(await read('.pi/prompts/deploy.md')).body).toBe('Deploy $1 to $2.')
    expect(exists('.pi/prompts/status.md')).toBe(false)
    // Codex's SKILL.md cannot load without a description: the first line is written there alone.
    expect(meaning(await read('.codex/skills/notes/SKILL.md')).data).toMatchObject({ name: 'notes', description: "Write release notes for the text after `$notes` in the user's message." })
    const warnings = compiled.diagnostics.filter((d) => d.severity === 'warning').map((d) => [d.code, d.message])
    const positional = warnings.filter(([code]) => code === 'command-positional-unsupported')
    expect(positional).toHaveLength(1)
    expect(positional[0]![1]).toContain('Command "deploy"')
    expect(positional[0]![1]).toContain('the command files of Codex and Gemini CLI give only the whole text')
    const shell = warnings.filter(([code]) => code === 'command-shell-unsupported')
    expect(shell).toHaveLength(1)
    expect(shell[0]![1]).toContain('Command "status"')
    expect(shell[0]![1]).toContain('the command files of Codex and pi run no shell command')

    // Imported again from the files compile wrote for Claude Code, as a person's (without the manifest): the same commands.
    await withoutManifest(join(root, 'back'))
    const again = await importProject(join(root, 'back'), { from: ['claude'] })
    expect(again.registry.commands.map(({ name, description, prompt, model, harness }) => ({ name, description, prompt, model, harness }))).toEqual(
      result.registry.commands.map(({ name, description, prompt, model, harness }) => ({ name, description, prompt, model, harness })),
    )
  })
})
