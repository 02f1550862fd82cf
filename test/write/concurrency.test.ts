import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { bundleWriter, exited, runWriter } from './child-process.js'
import { jsoncValue } from './jsonc-print.js'

const PROCESSES = Number(process.env.OAC_CONCURRENT_PROCESSES ?? 8)
const ITERATIONS = Number(process.env.OAC_CONCURRENT_ITERATIONS ?? 25)

const userMcpJson = '{\n\t// shared by every app of the monorepo\n\t"mcpServers": {\n\t\t"mine": { "command": "mine" }, // keep\n\t},\n\t"other": true\n}\n'
const userToml = '# shared agent\nmodel = "o3" # keep\n\n[mcp_servers.mine]\ncommand = "mine"\n'

let script: string
let target: string
beforeAll(async () => {
  script = await bundleWriter()
  target = await mkdtemp(join(tmpdir(), 'oac-concurrent-'))
})
afterAll(async () => {
  await rm(target, { recursive: true, force: true })
  await rm(dirname(script), { recursive: true, force: true })
})

it(`${PROCESSES} processes merging into one .mcp.json and one TOML at once lose no entry and no user content`, { timeout: 600_000 }, async () => {
  await writeFile(join(target, '.mcp.json'), userMcpJson)
  await mkdir(join(target, '.codex/agents'), { recursive: true })
  await writeFile(join(target, '.codex/agents/shared.toml'), userToml)

  const owners = Array.from({ length: PROCESSES }, (_, i) => `app-${i}`)
  const started = Date.now()
  const exits = await Promise.all(owners.map((owner) => exited(runWriter(script, ['merge', target, owner, String(ITERATIONS)]))))
  const seconds = (Date.now() - started) / 1000
  for (const exit of exits) expect([exit.code, exit.stdout, exit.stderr]).toEqual([0, '', ''])

  const expected = (owner: string): unknown => ({ command: 'node', args: [owner, String(ITERATIONS - 1)] })
  const json = await readFile(join(target, '.mcp.json'), 'utf8')
  const servers = (jsoncValue(json) as { mcpServers: Record<string, unknown>; other: boolean }).mcpServers
  expect(Object.keys(servers).sort()).toEqual(['mine', ...owners].sort())
  for (const owner of owners) expect(servers[owner]).toEqual(expected(owner))
  expect(json.startsWith('{\n\t// shared by every app of the monorepo\n\t"mcpServers": {\n\t\t"mine": { "command": "mine" }, // keep\n')).toBe(true)
  expect((jsoncValue(json) as { other: boolean }).other).toBe(true)

  const toml = await readFile(join(target, '.codex/agents/shared.toml'), 'utf8')
  expect(toml.startsWith(userToml)).toBe(true)
  const tables = (parseToml(toml) as { mcp_servers: Record<string, unknown> }).mcp_servers
  expect(Object.keys(tables).sort()).toEqual(['mine', ...owners].sort())
  for (const owner of owners) expect(JSON.parse(JSON.stringify(tables[owner]))).toEqual(expected(owner))

  expect((await readdir(join(target, '.oac'))).filter((name) => name !== 'locks' && !name.startsWith('manifest.'))).toEqual([])
  console.log(
    `concurrency test: ${PROCESSES} processes x ${ITERATIONS} builds, each merging into .mcp.json and a Codex TOML ` +
      `(${PROCESSES * ITERATIONS * 2} merges) in ${seconds.toFixed(1)} s; all ${PROCESSES} entries present in both files, user content intact`,
  )
})
