import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { importProject, writeNewFiles } from '../../src/import/index.js'
import { readFrontmatter } from '../../src/import/source-text.js'
import { project as inFolder } from './project.js'

const project = (files: Record<string, string>) => inFolder('oac-import-rules-', files)

const listed = (result: Awaited<ReturnType<typeof importProject>>) => result.notCarried.map((item) => `${item.at.file}:${item.at.line} ${item.what}: ${item.why}`)

describe('oac import of instructions', () => {
  it('reads the user\'s text of each instruction file as one rule, never our block, and keeps AGENTS.md the user\'s', async () => {
    const agents = '# Agents\n\nRun `npm test` before you commit.\n'
    const root = await project({
      // AGENTS.md with a block a compile left there: the block is the registry's, the rest the user's.
      'AGENTS.md': `${agents}\n<!-- oac:begin oac-tools -->\nCompiled rule text.\n<!-- oac:end oac-tools -->\n`,
      // CLAUDE.md holding AGENTS.md's text and more: only the more is a rule.
      'CLAUDE.md': `@AGENTS.md\n\n${agents}\n## Claude only\n\nPrefer small diffs.\n`,
      // GEMINI.md saying what QWEN.md says: one rule.
      'GEMINI.md': '# Style\n\nWrite short sentences.\n',
      'QWEN.md': '# Style\r\n\r\nWrite short sentences.  \r\n',
      '.claude/CLAUDE.md': '<!-- oac:begin oac-tools -->\n@../AGENTS.md\n<!-- oac:end oac-tools -->\n',
      // A copy of AGENTS.md: no rule, and a file to delete once the rules make every harness read AGENTS.md.
      '.github/copilot-instructions.md': agents,
    })
    const result = await importProject(root)
    expect(result.registry.rules.map((rule) => [rule.name, rule.text, rule.paths])).toEqual([
      ['claude', '## Claude only\n\nPrefer small diffs.', undefined],
      ['gemini', '# Style\n\nWrite short sentences.', undefined],
    ])
    expect(result.registry.rules.find((rule) => rule.name === 'gemini')!.also).toEqual([{ file: 'QWEN.md', line: 1 }])
    expect(result.agentsMd).toEqual({ file: 'AGENTS.md', line: 1 })
    expect(result.afterImport.map((step) => step.at.file)).toEqual(['CLAUDE.md', 'GEMINI.md', 'QWEN.md', '.github/copilot-instructions.md'])
    expect(result.afterImport.at(-1)!.what).toContain('it holds the text of AGENTS.md')
    const registry = result.files.find((file) => file.path === 'agents/registry.ts')!.content
    expect(registry).not.toContain('Compiled rule text')
    expect(result.files.map((file) => file.path).filter((path) => path.startsWith('agents/rules/'))).toEqual(['agents/rules/claude.md', 'agents/rules/gemini.md'])
  })

  it('reads path rules by each folder\'s key, brace lists written out, and a rule for every file as always on', async () => {
    const root = await project({
      '.claude/rules/api.md': '---\npaths: "src/api/**/*.{ts,tsx}"\n---\n\nValidate every request body.\n',
      '.github/instructions/docs.instructions.md': '---\napplyTo: "docs/**/*.md,README.md"\n---\nWrite in the second person.\n',
      '.github/instructions/everywhere.instructions.md': '---\napplyTo: "**"\n---\nNo emoji.\n',
      '.omp/rules/sql.md': '---\nglobs: ["migrations/**"]\nalwaysApply: false\n---\nNever drop a column.\n',
      '.clinerules/style.md': '---\npaths: ["src/**"]\n---\nUse tabs.\n',
      '.clinerules/workflows/release.md': 'Release it.\n',
    })
    const result = await importProject(root)
    expect(result.registry.rules.map((rule) => [rule.name, rule.paths])).toEqual([
      ['api', ['src/api/**/*.ts', 'src/api/**/*.tsx']],
      ['docs', ['docs/**/*.md', 'README.md']],
      ['everywhere', undefined],
      ['sql', ['migrations/**']],
      ['style', ['src/**']],
    ])
    expect(listed(result)).toContain(".clinerules/workflows:1 the files in .clinerules/workflows/: Cline's workflows are its commands, which the import does not read yet")
    // Compiled back: the globs where each harness scopes rules, the rule for every file in AGENTS.md.
    await writeNewFiles(root, result.files, '')
    const compiled = await compile({ registry: 'agents/registry.ts:registry', root, target: 'back' })
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const { readFile } = await import('node:fs/promises')
    const api = readFrontmatter(await readFile(join(root, 'back/.claude/rules/api.md'), 'utf8'), 'api.md')
    expect(api.data.paths).toEqual(['src/api/**/*.ts', 'src/api/**/*.tsx'])
    expect(api.body.trim()).toBe('Validate every request body.')
    // Copilot CLI, beside Claude Code, reads the rule from .claude/rules (by `paths:`); on its own, from .github/instructions by `applyTo`.
    await compile({ registry: 'agents/registry.ts:registry', root, target: 'back-copilot', harnesses: ['copilot'] })
    expect(readFrontmatter(await readFile(join(root, 'back-copilot/.github/instructions/docs.instructions.md'), 'utf8'), 'docs').data.applyTo).toBe('docs/**/*.md,README.md')
    expect(await readFile(join(root, 'back/AGENTS.md'), 'utf8')).toContain('No emoji.')
  })
})

describe('oac import of MCP servers', () => {
  it('reads every format\'s references as variables, a bearer header as bearerToken, and never copies a literal secret', async () => {
    const literal = 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789'
    const root = await project({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}', 'X-Team': '$TEAM' } },
          files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${env:WORKSPACE}'], env: { GITHUB_TOKEN: literal } },
          legacy: { type: 'sse', url: 'http://localhost:3001/sse' },
          region: { command: 'uvx', args: ['aws-mcp'], env: { AWS_REGION: '${AWS_REGION:-us-east-1}' } },
          'oac-tools': { command: 'node', args: ['-e', "const script = 'scripts/mcp_tools_server.cjs'; require(script)"] },
        },
      }, null, 2),
      'opencode.json': JSON.stringify({ mcp: { search: { type: 'local', command: ['npx', 'search-mcp'], environment: { API_KEY: '{env:SEARCH_KEY}' }, enabled: true } } }, null, 2),
      '.codex/config.toml': '[mcp_servers.tracker]\nurl = "https://tracker.example/mcp"\nbearer_token_env_var = "TRACKER_TOKEN"\nenv_http_headers = { "X-Org" = "TRACKER_ORG" }\n\n[mcp_servers.db]\ncommand = "dbhub"\nenv_vars = ["DATABASE_URL"]\n',
    })
    const result = await importProject(root)
    const servers = Object.fromEntries(result.registry.mcpServers.map(({ name, command, args, env, url, bearerToken, headers }) => [name, { command, args, env, url, bearerToken, headers }]))
    expect(servers).toEqual({
      github: { command: undefined, args: [], env: {}, url: 'https://api.githubcopilot.com/mcp/', bearerToken: { env: 'GITHUB_TOKEN' }, headers: { 'X-Team': { env: 'TEAM' } } },
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', { env: 'WORKSPACE' }], env: { GITHUB_TOKEN: { env: 'GITHUB_TOKEN' } }, url: undefined, bearerToken: undefined, headers: {} },
      search: { command: 'npx', args: ['search-mcp'], env: { API_KEY: { env: 'SEARCH_KEY' } }, url: undefined, bearerToken: undefined, headers: {} },
      tracker: { command: undefined, args: [], env: {}, url: 'https://tracker.example/mcp', bearerToken: { env: 'TRACKER_TOKEN' }, headers: { 'X-Org': { env: 'TRACKER_ORG' } } },
      db: { command: 'dbhub', args: [], env: { DATABASE_URL: { env: 'DATABASE_URL' } }, url: undefined, bearerToken: undefined, headers: {} },
    })
    const lines = listed(result)
    expect(lines.find((line) => line.includes('variable GITHUB_TOKEN of MCP server "files"'))).toContain("looks like a GitHub token, which the import does not copy: the registry takes it from the environment as fromEnv('GITHUB_TOKEN')")
    expect(lines.some((line) => line.includes('MCP server "legacy": it is an SSE server'))).toBe(true)
    expect(lines.some((line) => line.includes('MCP server "region": its variable AWS_REGION has `${AWS_REGION:-us-east-1}`'))).toBe(true)
    expect(lines.some((line) => line.includes('MCP server "oac-tools": unplugin-oac compiled it'))).toBe(true)
    expect(lines.some((line) => line.startsWith('opencode.json:') && line.includes('`enabled` of MCP server "search"'))).toBe(true)
    // Nothing the import writes holds the literal.
    for (const file of result.files) expect(file.content).not.toContain(literal)
    const registry = result.files.find((file) => file.path === 'agents/registry.ts')!.content
    expect(registry).toContain('bearerToken: fromEnv("GITHUB_TOKEN")')
  })
})

describe('oac import of frontmatter Claude Code repairs', () => {
  it('reads an agent whose description holds an unquoted ": " as Claude Code does, and lists one it cannot read', async () => {
    const description = 'Use this agent when code changes. Examples: <example>Context: a PR is open. user: "Review it"</example>'
    const root = await project({
      '.claude/agents/code-reviewer.md': `---\nname: code-reviewer\ndescription: ${description}\ntools: Read, Grep\n---\nReview the change.\n`,
      '.claude/agents/broken.md': '---\nname: broken\ndescription: [unclosed\n  - x: y\n---\nBody.\n',
    })
    const result = await importProject(root, { from: ['claude'] })
    expect(result.registry.agents.map((agent) => [agent.name, agent.description])).toEqual([['code-reviewer', description]])
    expect(listed(result).some((line) => line.startsWith('.claude/agents/broken.md:') && line.includes('even as Claude Code repairs it'))).toBe(true)
  })

  it('lists an agent whose prompt Gemini CLI and Qwen Code would fill in, and a command named as a skill', async () => {
    const root = await project({
      '.claude/agents/api.md': '---\nname: api\ndescription: Writes handlers.\n---\nUse `${userId}` from the route.\n',
      '.opencode/command/audit.md': '---\ndescription: Audits.\n---\nAudit $ARGUMENTS.\n',
      '.agents/skills/audit/SKILL.md': '---\nname: audit\ndescription: Audits the code.\n---\nAudit it.\n',
    })
    const result = await importProject(root)
    expect(result.registry.agents).toEqual([])
    expect(result.registry.commands).toEqual([])
    expect(result.registry.skills.map((skill) => skill.name)).toEqual(['audit'])
    const lines = listed(result)
    expect(lines.some((line) => line.startsWith('.claude/agents/api.md:1 agent "api": its prompt has `${userId}`, which Gemini CLI and Qwen Code fill in'))).toBe(true)
    expect(lines.some((line) => line.startsWith('.opencode/command/audit.md:1 command "audit": a skill has the same name'))).toBe(true)
  })
})

describe('oac import of GitHub Copilot', () => {
  it('reads its agent files and VS Code prompt files, and compiles them back to the same fields and texts', async () => {
    const agent = '---\nname: reviewer\ndescription: Reviews a change.\ntools: ["read", "search"]\nmodel: gpt-5\n---\n\nReview the diff for bugs.\n'
    const prompt = '---\ndescription: Explains code.\nargument-hint: <symbol>\n---\n\nExplain ${input:args} to a new teammate.\n'
    const root = await project({
      '.github/agents/reviewer.agent.md': agent,
      '.github/prompts/explain.prompt.md': prompt,
      '.github/prompts/here.prompt.md': '---\ndescription: Explains the selection.\n---\nExplain ${selection}.\n',
    })
    const result = await importProject(root, { from: ['copilot'] })
    expect(result.registry.agents.map((a) => [a.name, a.model, a.builtinTools])).toEqual([['reviewer', { copilot: 'gpt-5' }, { copilot: ['read', 'search'] }]])
    expect(result.registry.commands.map((c) => [c.name, c.prompt, c.argumentHint])).toEqual([['explain', 'Explain {{args}} to a new teammate.', '<symbol>']])
    expect(listed(result).some((line) => line.startsWith('.github/prompts/here.prompt.md:1 command "here": it uses `${selection}`, which the harness fills in'))).toBe(true)
    await writeNewFiles(root, result.files, '')
    const compiled = await compile({ registry: 'agents/registry.ts:registry', root, target: 'back' })
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const { readFile } = await import('node:fs/promises')
    const meaning = (text: string) => {
      const { data, body } = readFrontmatter(text, 'x')
      return { data, body: body.trim() }
    }
    expect(meaning(await readFile(join(root, 'back/.github/agents/reviewer.agent.md'), 'utf8'))).toEqual(meaning(agent))
    expect(meaning(await readFile(join(root, 'back/.github/prompts/explain.prompt.md'), 'utf8'))).toEqual(meaning(prompt))
    expect(meaning(await readFile(join(root, 'back/.claude/commands/explain.md'), 'utf8')).body).toBe('Explain $ARGUMENTS to a new teammate.')
  })
})
