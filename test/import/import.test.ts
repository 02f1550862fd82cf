import { existsSync } from 'node:fs'
import { cp, readFile, readdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { main } from '../../src/cli.js'
import { readFrontmatter } from '../../src/import/source-text.js'
import { linkedTempDir, run } from '../emit-native/fixture.js'
import { withoutManifest } from './project.js'

const repoRoot = resolve(import.meta.dirname, '../..')
const fixtures = join(repoRoot, 'test/fixtures/import')

/** Every file under a folder, by its path there, with its bytes. */
async function tree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name)
      files.set(relative(dir, path).split('\\').join('/'), await readFile(path, 'utf8'))
    }
  }
  return files
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(argv, (text) => (out += text), (text) => (err += text))
  return { code, out, err }
}

/** A Markdown file by meaning: its frontmatter's values and its body without the blank lines around it. */
async function markdown(path: string): Promise<{ data: unknown; body: string }> {
  const { data, body } = readFrontmatter(await readFile(path, 'utf8'), path)
  return { data, body: body.trim() }
}

interface Imported {
  project: string
  before: Map<string, string>
  out: string
}

const imported = new Map<string, Imported>()
let work: string

/** Copies the fixture into the work folder and imports it with the CLI, from its one harness. */
async function importFixture(id: 'claude' | 'opencode' | 'codex'): Promise<Imported> {
  const project = join(work, id)
  await cp(join(fixtures, id), project, { recursive: true })
  const before = await tree(project)
  const result = await cli('import', project, '--from', id)
  expect(result.err).toBe('')
  expect(result.code).toBe(0)
  return { project, before, out: result.out }
}

/** Compiles the imported registry back into `back/` of the project, for every harness. */
async function compileBack(project: string): Promise<string> {
  const result = await compile({ registry: 'agents/registry.ts:registry', root: project, target: 'back' })
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return join(project, 'back')
}

/**
 * Imports the compiled-back tree again, into a registry of its own, and gives its files: read without
 * its manifest, as files a person wrote in those formats (with it, the import lists them as compile's).
 */
async function reimport(project: string, id: string): Promise<{ files: Map<string, string>; out: string }> {
  await withoutManifest(join(project, 'back'))
  const result = await cli('import', join(project, 'back'), '--from', id, '--out', 'again/registry.ts')
  expect(result.code).toBe(0)
  return { files: await registryFiles(join(project, 'back/again')), out: result.out }
}

/**
 * The registry's own files (not its hooks), by their path inside its folder, without the always-on
 * rules named: those are compiled into our block of AGENTS.md, which an import leaves to the registry.
 */
async function registryFiles(dir: string, alwaysOn: readonly string[] = []): Promise<Map<string, string>> {
  const files = await tree(dir)
  for (const path of ['hooks.ts', 'hook-command.ts', ...alwaysOn.map((rule) => `rules/${rule}.md`)]) files.delete(path)
  let registry = files.get('registry.ts')!.replace(/^import \{ hooks \}.*\n/m, '').replace(/^ {2}hooks,\n/m, '').replace(/\(oac compile [^)]*\)/, '')
  for (const rule of alwaysOn) registry = registry.replace(new RegExp(` {4}defineRule\\(\\{\\n {6}name: "${rule}",[\\s\\S]*?\\n {4}\\}\\),\\n`), '')
  files.set('registry.ts', registry.replace(/ {2}rules: \[\n {2}\],\n/, '').replace('defineRegistry, defineRule,', 'defineRegistry,'))
  return files
}

/** The text of unplugin-oac's block in a compiled Markdown file. */
async function blockText(path: string): Promise<string> {
  const text = await readFile(path, 'utf8')
  return /<!-- oac:begin \S+ -->\n([\s\S]*?)<!-- oac:end \S+ -->/.exec(text)?.[1] ?? ''
}

let starter: { project: string; out: string; code: number }

beforeAll(async () => {
  work = await linkedTempDir()
  for (const id of ['claude', 'opencode', 'codex'] as const) imported.set(id, await importFixture(id))
  const project = join(work, 'fresh')
  await cp(join(fixtures, 'fresh'), project, { recursive: true })
  const result = await cli('init', project)
  expect(result.err).toBe('')
  starter = { project, out: result.out, code: result.code }
}, 60_000)

describe('oac import', () => {
  it('reads Claude Code\'s files into a registry that compiles back to what they said', async () => {
    const { project, before, out } = imported.get('claude')!
    expect(out).toContain('imported 2 agents, 1 command, 1 skill, 1 hook, 2 rules, 1 MCP server from Claude Code into agents/registry.ts')
    // What it cannot carry, each with its file and line.
    expect(out).toContain('.claude/settings.json:12  the Notification hooks')
    expect(out).toContain('.claude/settings.json:3  the permission "Bash(npm test:*)"')
    // The instruction files it made rules, which a harness would read beside the compiled rules.
    expect(out).toContain('Before the first compile:\n  CLAUDE.md:1  delete the file: its text is the rule "claude" now')
    expect(out).toContain('.claude/rules/testing.md:1  delete the file: its text is the rule "testing" now')
    // The files it read are as they were; it wrote only the registry, where the token is a variable's name.
    const after = await tree(project)
    for (const [path, bytes] of before) expect(after.get(path), path).toBe(bytes)
    const written = [...after.keys()].filter((path) => !before.has(path))
    expect(written.every((path) => path.startsWith('agents/'))).toBe(true)
    expect(after.get('agents/registry.ts')).toContain('bearerToken: fromEnv("GITHUB_TOKEN")')

    const back = await compileBack(project)
    for (const agent of ['reviewer', 'planner']) {
      const original = await markdown(join(project, `.claude/agents/${agent}.md`))
      const compiled = await markdown(join(back, `.claude/agents/${agent}.md`))
      expect(compiled.body).toBe(original.body)
      // `inherit` is Claude Code's model for an agent file without one.
      expect(compiled.data).toEqual(agent === 'planner' ? { ...(original.data as object), model: 'inherit' } : original.data)
    }
    expect(await markdown(join(back, '.claude/commands/fix-issue.md'))).toEqual(await markdown(join(project, '.claude/commands/fix-issue.md')))
    expect(await markdown(join(back, '.claude/skills/release-notes/SKILL.md'))).toEqual(await markdown(join(project, '.claude/skills/release-notes/SKILL.md')))
    expect(await readFile(join(back, '.claude/skills/release-notes/templates/notes.md'), 'utf8')).toBe(before.get('.claude/skills/release-notes/templates/notes.md'))
    // The server as .mcp.json had it, its token from the environment in every harness's own syntax.
    const mcpJson = JSON.parse(before.get('.mcp.json')!) as { mcpServers: Record<string, unknown> }
    const compiledMcp = JSON.parse(await readFile(join(back, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }
    expect(compiledMcp.mcpServers.github).toEqual(mcpJson.mcpServers.github)
    const codexConfig = parseToml(await readFile(join(back, '.codex/config.toml'), 'utf8')) as { mcp_servers: Record<string, unknown> }
    expect(codexConfig.mcp_servers.github).toEqual({ url: 'https://api.githubcopilot.com/mcp/', bearer_token_env_var: 'GITHUB_TOKEN' })
    const opencodeConfig = JSON.parse(await readFile(join(back, '.opencode/opencode.json'), 'utf8')) as { mcp: Record<string, unknown> }
    expect(opencodeConfig.mcp.github).toEqual({ type: 'remote', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer {env:GITHUB_TOKEN}' } })
    // CLAUDE.md's text in the rules every harness reads (AGENTS.md; Claude Code through .claude/CLAUDE.md), the path rule where rules are scoped.
    expect((await blockText(join(back, 'AGENTS.md'))).trim()).toBe(before.get('CLAUDE.md')!.trim())
    expect((await blockText(join(back, '.claude/CLAUDE.md'))).trim()).toBe('@../AGENTS.md')
    const testing = await markdown(join(project, '.claude/rules/testing.md'))
    expect(await markdown(join(back, '.claude/rules/testing.md'))).toEqual({ data: { ...(testing.data as object), description: 'Tests' }, body: testing.body })
    // Copilot CLI reads .claude/rules by `paths:` too: beside Claude Code it gets the rule from there alone, not a second copy.
    expect(existsSync(join(back, '.github/instructions/testing.instructions.md'))).toBe(false)
    // The same definitions in the other harnesses: the command with opencode's placeholder, the skill in .agents/skills.
    expect((await markdown(join(back, '.opencode/command/fix-issue.md'))).body).toBe((await markdown(join(project, '.claude/commands/fix-issue.md'))).body)
    expect((await markdown(join(back, '.opencode/agent/reviewer.md'))).body).toBe((await markdown(join(project, '.claude/agents/reviewer.md'))).body)

    // The hook is registered on the same event for the same tool, and its script starts the hand-written command.
    const settings = JSON.parse(await readFile(join(back, '.claude/settings.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> }
    expect(Object.keys(settings.hooks)).toEqual(['PreToolUse'])
    expect(settings.hooks.PreToolUse![0]!.matcher).toBe('^(?:Bash)$')
    const script = join(back, 'scripts/hooks/claude-pre-tool-use.mjs')
    const { CLAUDE_PROJECT_DIR: _unset, ...env } = process.env
    const blocked = await run(process.execPath, [script, '--harness', 'claude'], { cwd: project, env, stdin: JSON.stringify({ hook_event_name: 'PreToolUse', cwd: project, tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }) })
    expect(blocked.stdout + blocked.stderr).toContain('GUARD refuses rm -rf build')
    // In Gemini CLI, whose shell tool is run_shell_command and whose hooks Claude Code's command never knew.
    const gemini = await run(process.execPath, [script, '--harness', 'gemini'], { cwd: project, env, stdin: JSON.stringify({ hook_event_name: 'BeforeTool', cwd: project, tool_name: 'run_shell_command', tool_input: { command: 'rm -rf build' } }) })
    expect(gemini.stdout + gemini.stderr).toContain('GUARD refuses rm -rf build')
    const allowed = await run(process.execPath, [script, '--harness', 'gemini'], { cwd: project, env, stdin: JSON.stringify({ hook_event_name: 'BeforeTool', cwd: project, tool_name: 'run_shell_command', tool_input: { command: 'ls' } }) })
    expect(allowed.stdout + allowed.stderr).not.toContain('GUARD')
    expect(allowed.code).toBe(0)

    // Imported again from what it compiled, it is the same registry; the compiled hook is named as compiled.
    const again = await reimport(project, 'claude')
    expect(again.files).toEqual(await registryFiles(join(project, 'agents'), ['claude']))
    expect(again.out).toContain('unplugin-oac compiled it from the hook definition "claude-pre-tool-use"')
  }, 60_000)

  it('reads opencode\'s files (agent files, opencode.json\'s agents, commands, skills)', async () => {
    const { project, before, out } = imported.get('opencode')!
    expect(out).toContain('imported 3 agents, 1 command, 1 skill, 0 hooks, 1 rule, 1 MCP server from opencode into agents/registry.ts')
    expect(out).toContain('opencode.json:11  take "docs/style.md" out of the list: its text is the rule "docs-style" now')
    // The user's AGENTS.md is no rule: the compiled rules go into it, beside the user's text.
    expect(out).toContain('AGENTS.md:1  stays yours, and is no rule')
    expect(out).toContain('.opencode/plugin/guard.ts:1  the plugin .opencode/plugin/guard.ts')
    const after = await tree(project)
    for (const [path, bytes] of before) expect(after.get(path), path).toBe(bytes)

    const back = await compileBack(project)
    for (const agent of ['reviewer', 'docs-writer']) {
      expect(await markdown(join(back, `.opencode/agent/${agent}.md`))).toEqual(await markdown(join(project, `.opencode/agent/${agent}.md`)))
    }
    // opencode.json's agent, as an agent file: the same fields and prompt.
    const triage = await markdown(join(back, '.opencode/agent/triage.md'))
    expect(triage).toEqual({ data: { description: 'Sorts new issues by area.', mode: 'subagent' }, body: 'Label each new issue with its area and ask for a reproduction when it has none.' })
    expect(await markdown(join(back, '.opencode/command/test.md'))).toEqual(await markdown(join(project, '.opencode/command/test.md')))
    expect(await markdown(join(back, '.agents/skills/db-migrate/SKILL.md'))).toEqual(await markdown(join(project, '.agents/skills/db-migrate/SKILL.md')))
    expect(await readFile(join(back, '.agents/skills/db-migrate/reference.md'), 'utf8')).toBe(before.get('.agents/skills/db-migrate/reference.md'))
    // Claude Code gets the command with its own placeholder, and the agent with its prompt.
    expect((await markdown(join(back, '.claude/commands/test.md'))).body).toBe('Run the tests for $ARGUMENTS and summarize each failure in one line.')
    expect((await markdown(join(back, '.claude/agents/reviewer.md'))).body).toBe((await markdown(join(project, '.opencode/agent/reviewer.md'))).body)
    // The server with opencode's `{env:...}`, in its config and in Claude Code's; docs/style.md in the rules, AGENTS.md's text not again.
    const config = (text: string) => (parseJsonc(text) as { mcp: Record<string, unknown> }).mcp.github
    expect(config(await readFile(join(back, '.opencode/opencode.json'), 'utf8'))).toEqual(config(before.get('opencode.json')!))
    expect((JSON.parse(await readFile(join(back, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers.github).toEqual({ type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } })
    expect((await blockText(join(back, 'AGENTS.md'))).trim()).toBe(before.get('docs/style.md')!.trim())

    const again = await reimport(project, 'opencode')
    expect(again.files).toEqual(await registryFiles(join(project, 'agents'), ['docs-style']))
  }, 60_000)

  it('reads Codex\'s files (role files, skills, hooks.json)', async () => {
    const { project, before, out } = imported.get('codex')!
    expect(out).toContain('imported 1 agent, 0 commands, 1 skill, 2 hooks, 0 rules, 1 MCP server from Codex into agents/registry.ts')
    expect(out).toContain('.codex/config.toml:1  `model`')
    expect(out).toContain('AGENTS.md:1  stays yours, and is no rule')
    const after = await tree(project)
    for (const [path, bytes] of before) expect(after.get(path), path).toBe(bytes)

    const back = await compileBack(project)
    const original = parseToml(before.get('.codex/agents/reviewer.toml')!) as Record<string, unknown>
    const compiled = parseToml(await readFile(join(back, '.codex/agents/reviewer.toml'), 'utf8')) as Record<string, unknown>
    const trimmed = (role: Record<string, unknown>) => ({ ...role, developer_instructions: String(role.developer_instructions).trim() })
    expect(trimmed(compiled)).toEqual(trimmed(original))
    expect(await markdown(join(back, '.agents/skills/changelog/SKILL.md'))).toEqual(await markdown(join(project, '.agents/skills/changelog/SKILL.md')))
    expect(await readFile(join(back, '.agents/skills/changelog/templates/entry.md'), 'utf8')).toBe(before.get('.agents/skills/changelog/templates/entry.md'))
    const hooks = JSON.parse(await readFile(join(back, '.codex/hooks.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string }>> }
    expect(Object.keys(hooks.hooks).sort()).toEqual(['PreToolUse', 'SessionStart'])
    expect(hooks.hooks.PreToolUse![0]!.matcher).toBe('^(?:Bash)$')
    const servers = (text: string) => (parseToml(text) as { mcp_servers: Record<string, unknown> }).mcp_servers.github
    expect(servers(await readFile(join(back, '.codex/config.toml'), 'utf8'))).toEqual(servers(before.get('.codex/config.toml')!))

    const again = await reimport(project, 'codex')
    expect(again.files).toEqual(await registryFiles(join(project, 'agents')))
  }, 60_000)

  it('writes registries that type-check with tsc --strict', async () => {
    const files = [...imported.values(), starter].map(({ project }) => relative(work, join(project, 'agents/registry.ts')))
    await writeFile(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'], strict: true, skipLibCheck: true, allowImportingTsExtensions: true, noEmit: true, paths: { 'unplugin-oac': [join(repoRoot, 'src/index.ts')] } },
        files,
      }),
    )
    await writeFile(join(work, 'package.json'), JSON.stringify({ type: 'module' }))
    const checked = await run(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(work, 'tsconfig.json')], { cwd: work })
    expect(checked.stdout + checked.stderr).toBe('')
    expect(checked.code).toBe(0)
  }, 120_000)

  it('never overwrites a file: a second import into the same place writes nothing and says why', async () => {
    const { project } = imported.get('opencode')!
    const before = await tree(project)
    const result = await cli('import', project, '--from', 'opencode')
    expect(result.code).toBe(1)
    expect(result.err).toContain('agents/registry.ts, ')
    expect(result.err).toContain('there already, and oac never overwrites a file: nothing was written. Import into a fresh folder: --out agents/imported/registry.ts')
    expect(await tree(project)).toEqual(before)
  })
})

describe('oac import of two harnesses', () => {
  it('makes the same agent in both one definition, and names the one it keeps where they disagree', async () => {
    const project = join(work, 'both')
    await cp(join(fixtures, 'claude'), project, { recursive: true })
    await cp(join(fixtures, 'opencode'), project, { recursive: true })
    const agentFile = join(project, '.opencode/agent/reviewer.md')
    await writeFile(agentFile, (await readFile(agentFile, 'utf8')).replace('Reviews a change for bugs', 'Reviews a diff for bugs'))
    const result = await cli('import', project, '--from', 'opencode,claude')
    expect(result.code).toBe(0)
    expect(result.out).toContain('imported 4 agents, 2 commands, 2 skills, 1 hook, 3 rules, 1 MCP server from opencode, Claude Code')
    expect(result.out).toContain('agent "reviewer": its description differs between .opencode/agent/reviewer.md:1 and .claude/agents/reviewer.md:1; the import keeps the one of .opencode/agent/reviewer.md:1 (opencode comes first in --from).')
    const back = await compileBack(project)
    // One agent, each harness's own fields from its own file: Claude Code's built-ins and model, opencode's permission and model.
    const claude = await markdown(join(back, '.claude/agents/reviewer.md'))
    const opencode = await markdown(join(back, '.opencode/agent/reviewer.md'))
    expect(claude.data).toEqual({ ...((await markdown(join(project, '.claude/agents/reviewer.md'))).data as object), description: 'Reviews a diff for bugs and missing tests. Use after every edit.' })
    expect(opencode).toEqual(await markdown(agentFile))
  }, 60_000)
})

describe('oac init', () => {
  it('writes a starter registry that compiles, and prints the line that adds the plugin to the bundler config it found', async () => {
    const { project, out, code } = starter
    expect(code).toBe(0)
    expect(out).toContain("vite.config.ts found: add the plugin there, and each build compiles the registry:\n  import oac from 'unplugin-oac/vite'\n  plugins: [oac({ registry: './agents/registry.ts:registry', target: '.' })]")
    // The fixture's package.json has no zod.
    expect(out).toContain('The tool is written with zod: npm install -D unplugin-oac zod')
    const result = await compile({ registry: 'agents/registry.ts:registry', root: project, target: 'back' })
    expect(result.plan.agents.map((agent) => agent.name)).toEqual(['helper'])
    expect(result.plan.tools.map((tool) => [tool.name, tool.approval])).toEqual([['count_words', 'allow']])
    const counted = await run(process.execPath, [join(project, 'back/scripts/count_words.mjs'), '--text', 'one two three'], { cwd: project })
    expect(JSON.parse(counted.stdout)).toEqual({ words: 3 })
  }, 60_000)

  it('never overwrites a file', async () => {
    const before = await tree(starter.project)
    const again = await cli('init', starter.project)
    expect(again.code).toBe(1)
    expect(again.err).toContain('agents/tools/count-words.ts, agents/registry.ts are there already, and oac never overwrites a file: nothing was written.')
    expect(await tree(starter.project)).toEqual(before)
  })

  it('names the CLI command where it finds no bundler config', async () => {
    const project = join(work, 'no-bundler')
    const result = await cli('init', project)
    expect(result.out).toContain("Compile it into every harness's files:\n  npx oac compile agents/registry.ts")
  })
})

describe('oac import of Gemini CLI', () => {
  it('reads its agents, TOML commands, servers and GEMINI.md, and lists its hooks', async () => {
    const project = join(work, 'gemini')
    await cp(join(fixtures, 'gemini'), project, { recursive: true })
    const before = await tree(project)
    const result = await cli('import', project, '--from', 'gemini')
    expect(result.code).toBe(0)
    expect(result.out).toContain('imported 1 agent, 2 commands, 0 skills, 0 hooks, 1 rule, 1 MCP server from Gemini CLI')
    expect(result.out).not.toContain('.gemini/commands/git')
    // A subfolder's command is namespaced, as Gemini CLI starts it: /git:commit.
    expect(await readFile(join(project, 'agents/registry.ts'), 'utf8')).toContain('name: "git:commit"')
    expect(result.out).toContain(".gemini/settings.json:5  `hooks`: the imported hooks' runner speaks Claude Code's and Codex's hook wire")
    expect(result.out).toContain('GEMINI.md:1  delete the file: its text is the rule "gemini" now')
    const back = await compileBack(project)
    expect(await markdown(join(back, '.gemini/agents/reviewer.md'))).toEqual(await markdown(join(project, '.gemini/agents/reviewer.md')))
    const command = (file: string) => parseToml(file) as Record<string, unknown>
    const original = command(before.get('.gemini/commands/explain.toml')!)
    const compiled = command(await readFile(join(back, '.gemini/commands/explain.toml'), 'utf8'))
    expect({ ...compiled, prompt: String(compiled.prompt).trim() }).toEqual({ ...original, prompt: String(original.prompt).trim() })
    expect((await markdown(join(back, '.claude/commands/explain.md'))).body).toBe('Explain $ARGUMENTS to a new teammate, in plain words.')
    const commitToml = command(await readFile(join(back, '.gemini/commands/git/commit.toml'), 'utf8'))
    expect({ ...commitToml, prompt: String(commitToml.prompt).trim() }).toEqual(command(before.get('.gemini/commands/git/commit.toml')!))
    // The same name in every harness's own form: a subfolder where it namespaces one, else one flat name.
    const commit = { data: { description: 'Write a commit message.' }, body: 'Write a commit message for the staged changes.' }
    for (const path of ['.claude/commands/git/commit.md', '.opencode/command/git/commit.md', '.qwen/commands/git/commit.md', '.pi/prompts/git-commit.md']) {
      expect(await markdown(join(back, path))).toEqual(commit)
    }
    expect((await markdown(join(back, '.codex/skills/git-commit/SKILL.md'))).data).toMatchObject({ name: 'git-commit', description: 'Write a commit message.' })
    const settings = (text: string) => (JSON.parse(text) as { mcpServers: Record<string, unknown> }).mcpServers.github
    expect(settings(await readFile(join(back, '.gemini/settings.json'), 'utf8'))).toEqual(settings(before.get('.gemini/settings.json')!))
    expect((await blockText(join(back, 'AGENTS.md'))).trim()).toBe(before.get('GEMINI.md')!.trim())
    const again = await reimport(project, 'gemini')
    expect(again.files).toEqual(await registryFiles(join(project, 'agents'), ['gemini']))
  }, 60_000)
})

describe('oac import of Kilo', () => {
  it("reads opencode's formats under .kilo/", async () => {
    const project = join(work, 'kilo')
    const opencode = join(fixtures, 'opencode')
    await cp(join(opencode, '.opencode/agent'), join(project, '.kilo/agents'), { recursive: true })
    await cp(join(opencode, '.opencode/command'), join(project, '.kilo/command'), { recursive: true })
    await cp(join(opencode, '.agents'), join(project, '.agents'), { recursive: true })
    const result = await cli('import', project, '--from', 'kilo')
    expect(result.code).toBe(0)
    expect(result.out).toContain('imported 2 agents, 1 command, 1 skill, 0 hooks, 0 rules, 0 MCP servers from Kilo')
    const back = await compileBack(project)
    for (const agent of ['reviewer', 'docs-writer']) expect(await markdown(join(back, `.kilo/agents/${agent}.md`))).toEqual(await markdown(join(project, `.kilo/agents/${agent}.md`)))
    expect(await markdown(join(back, '.kilo/command/test.md'))).toEqual(await markdown(join(project, '.kilo/command/test.md')))
  }, 60_000)
})
