import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { bundleWriter, exited, runWriter } from './child-process.js'
import { content, FILES } from './children/generation.js'
import { jsoncValue } from './jsonc-print.js'

// How many builds to kill (OAC_CRASH_RUNS=1000 for a longer soak).
const KILLS = Number(process.env.OAC_CRASH_RUNS ?? 60)
// Kills land anywhere in the first few generations the child writes.
const MAX_DELAY_MS = 1500

const userMcpJson = '{\n  // the team’s servers\n  "mcpServers": {\n    "mine": { "command": "mine" }\n  }\n}\n'
const userToml = '# planner, partly by hand\nmodel = "o3" # keep\n\n[mcp_servers.mine]\ncommand = "mine"\n'

let script: string
let target: string
beforeAll(async () => {
  script = await bundleWriter()
  target = await mkdtemp(join(tmpdir(), 'oac-crash-'))
})
afterAll(async () => {
  await rm(target, { recursive: true, force: true })
  await rm(dirname(script), { recursive: true, force: true })
})

const path = (i: number): string => join(target, i % 2 === 0 ? 'scripts' : '.claude/agents', `file-${i}.txt`)

/** Every file holds one whole generation (old or new, never a part); returns the generations seen. */
async function verifyTree(): Promise<{ generations: Set<number>; temps: number }> {
  const generations = new Set<number>()
  for (let i = 0; i < FILES; i++) {
    const text = await readFile(path(i), 'utf8')
    const g = Number(/^gen=(\d+) /.exec(text)?.[1])
    expect(text, `file ${i} is not a whole generation`).toBe(content(g, i))
    generations.add(g)
  }
  const servers = (jsoncValue(await readFile(join(target, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { args: string[] }> }).mcpServers
  expect(servers.mine).toEqual({ command: 'mine' })
  const g = Number(servers['oac-tools']?.args[0]?.slice(4))
  expect(servers['oac-tools']?.args[1]).toBe('x'.repeat(1 + (g % 5000)))
  expect(await readFile(join(target, '.mcp.json'), 'utf8')).toContain('// the team’s servers')
  const toml = await readFile(join(target, '.codex/agents/planner.toml'), 'utf8')
  expect(toml.startsWith('# planner, partly by hand\nmodel = "o3" # keep\n\n[mcp_servers.mine]\ncommand = "mine"\n')).toBe(true)
  expect(parseToml(toml)).toHaveProperty(['mcp_servers', 'oac-tools'])
  const manifest = await readFile(join(target, '.oac/manifest.oac-tools.json'), 'utf8')
  expect(() => JSON.parse(manifest)).not.toThrow()
  let temps = 0
  for (const folder of ['', 'scripts', '.claude/agents', '.codex/agents', '.oac']) {
    temps += (await readdir(join(target, folder))).filter((name) => name.endsWith('.tmp')).length
  }
  return { generations, temps }
}

it(`a build killed at random moments (${KILLS} times) leaves every file old or new, never partial`, { timeout: 600_000 }, async () => {
  await writeFile(join(target, '.mcp.json'), userMcpJson)
  await mkdir(join(target, '.codex/agents'), { recursive: true })
  await writeFile(join(target, '.codex/agents/planner.toml'), userToml)
  expect((await exited(runWriter(script, ['once', target, 'oac-tools', '0']))).code).toBe(0)

  let next = 1
  let killedMidWrite = 0
  let mixed = 0
  for (let run = 0; run < KILLS; run++) {
    const child = runWriter(script, ['loop', target, 'oac-tools', String(next)])
    const done = exited(child)
    await Promise.race([new Promise((resolve) => child.stderr?.once('data', resolve)), done])
    await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_DELAY_MS))
    child.kill('SIGKILL')
    const exit = await done
    expect(exit.stdout, 'the writer reported diagnostics (a false "edited by hand" after a crash?)').toBe('')
    expect(exit.signal).toBe('SIGKILL')
    const { generations, temps } = await verifyTree()
    if (temps > 0) killedMidWrite++
    if (generations.size > 1) mixed++
    next = Math.max(next, ...generations) + 1
  }

  // The next build after all those crashes succeeds (the manifest still knows every file) and cleans up.
  const final = await exited(runWriter(script, ['once', target, 'oac-tools', String(next)]))
  expect(final.stdout).toBe('')
  expect(final.code).toBe(0)
  const { generations, temps } = await verifyTree()
  expect([...generations]).toEqual([next])
  expect(temps).toBe(0)
  console.log(
    `crash test: ${KILLS} builds killed (SIGKILL 0-${MAX_DELAY_MS} ms into the write loop), ${FILES} files + 2 merges checked after each; ` +
      `${killedMidWrite} kills left temp files (killed mid-write), ${mixed} left a mix of old and new files; ` +
      `0 partial files; last generation ${next}`,
  )
})
