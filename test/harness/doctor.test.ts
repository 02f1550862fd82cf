import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { applyEdits, modify, parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import type { DoctorEdit, DoctorFix } from '../../src/compile/harnesses/types.js'
import { HARNESSES } from '../../src/define/types.js'
import type { DoctorReport } from '../../src/doctor/index.js'
import { repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { BUN, installQwen } from './drivers.js'
import { offlineRun } from './offline.js'
import { playgroundProject } from './project.js'

/**
 * `oac doctor` against the real CLIs, each at its pinned version: in a fresh home (nothing trusted,
 * nothing approved, no plugin package) it exits 1 and names the seven harnesses that hide our tools
 * until a one-time step; after the steps it printed, taken as a user would (its commands run, its
 * settings edits made), it names Codex's hooks, which wait for their own trust; after that step, it exits 0. Both runs with no network but loopback (where the machine allows).
 * Opt-in tier: `npm run build && npx vitest run --config vitest.harness.config.ts test/harness/doctor.test.ts`.
 */

const STEPPED = ['opencode', 'claude', 'codex', 'gemini', 'copilot', 'qwen', 'kilo']

let project: string
let home: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  ;({ dir: project } = await playgroundProject('oac-harness-doctor-'))
  ;({ home, env } = await isolatedHome())
  // The playground's server passes FORECAST_UNITS on (Claude Code warns when it is not set; Qwen Code binds its approval to the value).
  env.FORECAST_UNITS = 'metric'
  // Codex refuses a CODEX_HOME that does not exist; a user's ~/.codex is there once Codex has run.
  await mkdir(env.CODEX_HOME!, { recursive: true })
  // Every pinned CLI on PATH, as a user has them installed; Qwen Code's Node 22 first (its bin runs `node`), then the system's.
  const { node } = await installQwen()
  const bins = [dirname(node)]
  for (const id of HARNESSES) {
    const { cli } = harness(id).proof
    // pi is a devDependency, at the version its description pins.
    bins.push(id === 'pi' ? join(repoRoot, 'node_modules/.bin') : join(await installHarnessPackage(cli.package, cli.version, id === 'omp' ? [`bun@${BUN}`] : []), 'node_modules/.bin'))
  }
  env.PATH = [...bins, process.env.PATH].join(':')
})

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true })
  if (home) await rm(home, { recursive: true, force: true })
})

async function doctor(): Promise<{ code: number | null; report: DoctorReport; stderr: string }> {
  const run = await offlineRun('node', [join(repoRoot, 'dist/cli.js'), 'doctor', '--json'], { cwd: project, env })
  return { code: run.code, report: JSON.parse(run.stdout) as DoctorReport, stderr: run.stderr }
}

/** A settings edit as the user makes it: the key set (or the item added) in the file, whatever else it holds kept. */
async function applyEdit(edit: DoctorEdit): Promise<void> {
  await mkdir(dirname(edit.file), { recursive: true })
  const text = existsSync(edit.file) ? await readFile(edit.file, 'utf8') : ''
  if (edit.format === 'toml') {
    const config = parseToml(text) as Record<string, unknown>
    let table = config
    for (const key of edit.path.slice(0, -1)) table = (table[key] ??= {}) as Record<string, unknown>
    const last = edit.path.at(-1)!
    table[last] = edit.op === 'set' ? edit.value : [...((table[last] as unknown[] | undefined) ?? []), edit.value]
    return writeFile(edit.file, stringifyToml(config))
  }
  const list = (parseJsonc(text || '{}') as Record<string, unknown>) ?? {}
  let node: unknown = list
  for (const key of edit.path) node = (node as Record<string, unknown> | undefined)?.[key]
  const value = edit.op === 'set' ? edit.value : [...((node as unknown[] | undefined) ?? []), edit.value]
  await writeFile(edit.file, applyEdits(text || '{}', modify(text || '{}', edit.path, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } })))
}

/** Takes a step as doctor printed it: its command run where it says (with the network: npm fetches the package), or its edits made. */
async function take(fix: DoctorFix): Promise<void> {
  if (fix.command) {
    const [command, ...args] = fix.command.argv
    // In the fresh home, with this machine's npm configuration (its registry and certificates) and its certificates.
    const npm = { npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), '.npmrc'), NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }
    await promisify(execFile)(command!, args, { cwd: fix.command.cwd, env: { ...env, ...npm }, maxBuffer: 64 * 1024 * 1024 })
  }
  for (const edit of fix.edits ?? []) await applyEdit(edit)
}

describe('oac doctor with the real CLIs', () => {
  it('in a fresh home names the seven harnesses that wait for a step and exits 1; after the steps it printed (then Codex\'s hook trust), exits 0', { timeout: 600_000 }, async () => {
    const fresh = await doctor()
    expect(fresh.code, fresh.stderr).toBe(1)
    expect(fresh.report.ok).toBe(false)
    const statuses = Object.fromEntries(fresh.report.harnesses.map((h) => [h.harness, h.status]))
    expect(statuses, JSON.stringify(fresh.report, null, 2)).toEqual({ ...Object.fromEntries(STEPPED.map((id) => [id, 'needs-step'])), pi: 'unprobed', omp: 'unprobed' })
    for (const check of fresh.report.harnesses) {
      expect(check.version, check.harness).toBe(harness(check.harness).proof.cli.version)
      if (check.status === 'needs-step') expect(check.fixes.length, check.harness).toBeGreaterThan(0)
    }

    for (const check of fresh.report.harnesses) for (const fix of check.fixes) await take(fix)

    // Codex lists a folder's hooks only once it trusts the folder: then each waits for its own trust.
    const trusted = await doctor()
    expect(trusted.code).toBe(1)
    const waiting = trusted.report.harnesses.filter((h) => h.status !== 'ready' && h.status !== 'unprobed')
    expect(waiting.map((h) => [h.harness, h.fixes.map((fix) => fix.says)]), JSON.stringify(trusted.report, null, 2)).toEqual([
      ['codex', ['has not trusted 1 hook of .codex/hooks.json, which it skips without a word']],
    ])
    for (const fix of waiting[0]!.fixes) await take(fix)

    const after = await doctor()
    expect(after.code, JSON.stringify(after.report, null, 2)).toBe(0)
    expect(Object.fromEntries(after.report.harnesses.map((h) => [h.harness, h.status]))).toEqual({
      ...Object.fromEntries(STEPPED.map((id) => [id, 'ready'])),
      pi: 'unprobed',
      omp: 'unprobed',
    })
    const sees = Object.fromEntries(after.report.harnesses.map((h) => [h.harness, h.sees]))
    expect(sees).toMatchObject({ codex: 'server oac-tools configured; 1 hook trusted', claude: 'server oac-tools connected', gemini: 'server oac-tools connected', qwen: 'server oac-tools connected', opencode: '6 tools (agent build)', kilo: '6 tools (agent code)' })
  })
})
