import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claude as claudeHarness } from '../../src/compile/harnesses/claude.js'
import { repoRoot } from '../util/project.js'
import { readQuickStart } from '../util/quick-start.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { offlineRun } from './offline.js'

/*
 * The README's quick start, followed as written, then opened in the real Claude Code with a fresh home:
 * the server waits for approval until the one-time step the quick start names, then connects, and
 * Claude Code has the agent and the tool the quick start says. The packed tarball in a fresh npm
 * project is test/installed (default suite); here the files are the README's, compiled by the built
 * `oac` (npm run build). Opt-in tier:
 * `npx vitest run --config vitest.harness.config.ts test/harness/quick-start.test.ts`.
 */

const run = promisify(execFile)
const quickStart = readQuickStart()
const SERVER = 'oac-tools'
const cli = claudeHarness.proof.cli

let project = ''
let home = ''
let env: NodeJS.ProcessEnv = {}
let claude = ''

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'dist', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm run test:harness does).')
  claude = join(await installHarnessPackage(cli.package, cli.version), 'node_modules', '.bin', cli.bin)
  project = await mkdtemp(join(tmpdir(), 'oac-harness-quick-start-'))
  await run('git', ['init', '-q', project])
  // The project's packages, as `npm install -D unplugin-oac zod` leaves them (the loader maps unplugin-oac to this build).
  await symlink(join(repoRoot, 'node_modules'), join(project, 'node_modules'), 'dir')
  for (const step of quickStart.steps) {
    if (step.kind === 'file') {
      await mkdir(join(project, dirname(step.path)), { recursive: true })
      await writeFile(join(project, step.path), step.text)
    } else if (step.kind === 'command' && step.command.startsWith('npx oac ')) {
      await run(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...step.command.split(' ').slice(2)], { cwd: project })
    } else if (step.kind === 'transcript') {
      const { stdout } = await run('sh', ['-c', step.command], { cwd: project })
      expect(stdout, step.command).toBe(step.output)
    }
  }
  ;({ home, env } = await isolatedHome())
})

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true })
  if (home) await rm(home, { recursive: true, force: true })
})

describe(`Claude Code ${cli.version}, after the quick start`, () => {
  async function serverLine(): Promise<string> {
    // `claude mcp list` exits 0 whatever it found: its line for our server says it.
    const listed = await offlineRun(claude, claudeHarness.proof.list.args(), { cwd: project, env })
    return listed.stdout.split('\n').find((line) => line.startsWith(`${SERVER}:`)) ?? `(no ${SERVER} line)\n${listed.stdout}${listed.stderr}`
  }

  it('waits for approval in a fresh home, as the quick start says', async () => {
    expect(quickStart.prose).toContain('⏸ Pending approval')
    expect(await serverLine()).toMatch(/ - ⏸ Pending approval/)
  })

  it('connects after the one-time step the quick start names, and has its agent and tool', async () => {
    const settings = quickStart.steps.filter((step) => step.kind === 'settings')
    expect(settings.map((step) => step.homeFile)).toEqual(['~/.claude/settings.json'])
    for (const step of settings) {
      const file = join(home, step.homeFile.slice(2))
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, JSON.stringify(step.json))
    }
    expect(quickStart.prose).toContain('✔ Connected')
    expect(await serverLine()).toMatch(claudeHarness.proof.list.expect({ server: SERVER, tool: 'forecast', agent: 'planner' }))

    // The init event of a headless run lists the agents and tools it loaded (the run then stops: no account).
    const child = spawn(claude, ['-p', 'hi', '--output-format', 'stream-json', '--verbose'], {
      cwd: project,
      env: { ...env, MCP_CONNECTION_NONBLOCKING: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const first = await new Promise<string>((resolveLine, reject) => {
      createInterface({ input: child.stdout }).once('line', resolveLine)
      child.once('error', reject)
      child.once('exit', (code) => reject(new Error(`claude exited (${code}) before printing the init event`)))
    })
    child.kill()
    const init = JSON.parse(first) as { agents: string[]; tools: string[] }
    for (const named of ['planner', `mcp__${SERVER}__forecast`]) {
      expect(quickStart.prose).toContain(`\`${named}\``)
      expect([...init.agents, ...init.tools]).toContain(named)
    }
  })

})
