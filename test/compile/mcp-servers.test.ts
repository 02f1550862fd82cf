import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { PlanOptions } from '../../src/compile/index.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { emitAll } from '../../src/emit/index.js'
import { markedFixture } from '../util/marked-fixture.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/mcp-servers')

const fixture = markedFixture(root, 'registries.ts')
const { markedLine } = fixture

/** Compiles a registry that loads cleanly: the plan and the compile's diagnostics. */
async function compile(exportName: string, options: Partial<PlanOptions> = {}) {
  const { loaded, ...compiled } = await fixture.compile(exportName, options)
  expect(loaded.diagnostics).toEqual([])
  return compiled
}

const errors = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.severity === 'error')

describe('MCP servers in the plan', () => {
  afterEach(() => {
    delete process.env.GITHUB_TOKEN
  })

  it('each server with its transport, literals as written and references by name only', async () => {
    // The variable is set while compiling: its value must reach nothing in the plan.
    process.env.GITHUB_TOKEN = 'value-of-the-github-token'
    const { plan, diagnostics } = await compile('all')
    expect(errors(diagnostics)).toEqual([])
    expect(plan!.mcpServers).toEqual([
      {
        name: 'github',
        description: 'Issues and pull requests.',
        source: { file: 'registries.ts', line: expect.any(Number), column: expect.any(Number) },
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: { env: 'GITHUB_TOKEN' }, LOG_LEVEL: 'info' },
      },
      {
        name: 'tracker',
        source: { file: 'registries.ts', line: expect.any(Number), column: expect.any(Number) },
        transport: 'http',
        url: 'https://tracker.example.com/mcp',
        bearerTokenEnv: 'TRACKER_TOKEN',
        headers: { 'X-Team': 'core', 'X-Api-Key': { env: 'TRACKER_KEY' } },
      },
    ])
    expect(JSON.stringify(plan)).not.toContain('value-of-the-github-token')
    // An agent's tools may name a server; the agent keeps its tools apart from it.
    const triager = plan!.agents.find((agent) => agent.name === 'triager')!
    expect(triager).toMatchObject({ tools: ['word_count'], mcpServers: ['github'] })
    expect(plan!.agents.find((agent) => agent.name === 'writer')!.mcpServers).toBeUndefined()
  })

  it('a config picks servers by name, and an unknown name is an error', async () => {
    const picked = await compile('all', { config: 'picked' })
    expect(picked.plan!.mcpServers!.map((server) => server.name)).toEqual(['tracker'])
    // The agent's server is not picked: the agent is not given it.
    expect(picked.plan!.agents.find((agent) => agent.name === 'triager')!.mcpServers).toBeUndefined()
    const unknown = await compile('all', { config: 'unknown' })
    expect(errors(unknown.diagnostics).map((d) => [d.code, d.message])).toEqual([['config-mcp-server-unknown', expect.stringContaining('"nope"')]])
  })

  it("a server only an agent brings joins the plan, once however often it is named", async () => {
    const { plan } = await compile('brought')
    expect(plan!.mcpServers!.map((server) => server.name)).toEqual(['github', 'plain'])
    expect(plan!.agents[0]!.mcpServers).toEqual(['plain', 'github'])
  })

  it.each([
    ['nameInvalid', 'mcp-server-name-invalid', 'mcp-server-name-invalid'],
    ['nameOurs', 'mcp-server-name-ours', 'mcp-server-name-ours'],
    ['both', 'mcp-server-transport', 'mcp-server-transport-both'],
    ['neither', 'mcp-server-transport', 'mcp-server-transport-neither'],
    ['secretInEnv', 'mcp-server-secret-literal', 'secret-env'],
    ['secretInHeader', 'mcp-server-secret-literal', 'secret-header'],
    ['secretInArgs', 'mcp-server-secret-literal', 'secret-args'],
    ['badEnvName', 'mcp-env-name-invalid', 'mcp-env-name-invalid'],
    ['badUrl', 'mcp-server-url-invalid', 'mcp-server-url-invalid'],
    ['unused', 'mcp-server-field-unused', 'mcp-server-field-unused'],
    ['duplicate', 'mcp-server-duplicate', 'mcp-server-duplicate'],
  ])('%s: %s, at the definition', async (exportName, code, marker) => {
    const { plan, diagnostics } = await compile(exportName)
    expect(plan).toBeUndefined()
    expect(errors(diagnostics).map((d) => ({ code: d.code, file: d.file, line: d.line }))).toEqual([{ code, file: 'registries.ts', line: await markedLine(marker) }])
  })

  it('a literal secret is not repeated in its message', async () => {
    const { diagnostics } = await compile('secretInEnv')
    const [error] = errors(diagnostics)
    expect(error!.message).toMatch(/env\.GITHUB_TOKEN holds a literal that looks like a GitHub token/)
    expect(`${error!.message} ${error!.fix}`).not.toMatch(/ghp_/)
  })

  it("a reference a harness's configuration cannot fill leaves the server out of that harness, with a warning, unless our bridge carries it", async () => {
    const project = await compile('unfilled')
    const leftOut = project.diagnostics.filter((d) => d.code === 'mcp-server-left-out').map((d) => `${d.line} ${d.message.match(/^\S+/)![0]} ${d.message.match(/server "([^"]+)"/)![1]}`)
    const argued = await markedLine('argued')
    // Codex fills no argument; Kilo takes no reference at all in a project's config, and gets both servers through our bridge plugin.
    expect(leftOut).toEqual([`${argued} Codex argued`])
    expect(emitAll(project.plan!).map((file) => file.path)).toContain('.kilo/plugins/oac-tools-mcp.ts')
    // The user's Kilo configuration takes references: only Codex's limit stays.
    const user = await compile('unfilled', { scope: 'user' })
    expect(user.diagnostics.filter((d) => d.code === 'mcp-server-left-out').map((d) => d.message.match(/^\S+/)![0])).toEqual(['Codex'])
  })
})
