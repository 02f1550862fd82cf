import { execFile } from 'node:child_process'
import { chmod, cp, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { doctor } from '../../src/doctor/index.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/**
 * `oac doctor` without the real harness CLIs (they are the opt-in tier's, test/harness/doctor.test.ts):
 * which harnesses a compiled tree holds, "not installed" for a CLI not on PATH, a step found without
 * running the CLI, exit codes and the --json shape, through the built CLI in a process of its own.
 */

const execFileAsync = promisify(execFile)
/** A PATH that finds node and nothing of the harnesses. */
const NODE_ONLY = dirname(process.execPath)

let project: string
let home: string

function oac(args: string[], path: string): Promise<{ code: number; out: string; err: string }> {
  return execFileAsync('node', [join(repoRoot, 'dist/cli.js'), ...args], { cwd: project, env: { PATH: path, HOME: home } }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout, err: stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, out: error.stdout, err: error.stderr }),
  )
}

beforeAll(async () => {
  project = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-doctor-')
  home = await tempDir('oac-doctor-home-')
  await compile({ root: project, registry: 'agents/registry.ts:registry', harnesses: ['opencode', 'claude', 'codex'] })
})

describe('oac doctor', () => {
  it('lists the harnesses the tree holds files for, each not installed when its CLI is not on PATH, and exits 0', async () => {
    const { code, out, err } = await oac(['doctor', '--json'], NODE_ONLY)
    expect(code, err).toBe(0)
    const report = JSON.parse(out) as { ok: boolean; target: string; scope: string; server: string; harnesses: Array<{ harness: string; status: string; detail: string; fixes: unknown[] }> }
    expect(report).toMatchObject({ ok: true, target: project, scope: 'project', server: 'oac-tools' })
    expect(report.harnesses.map((h) => [h.harness, h.status, h.detail])).toEqual([
      ['opencode', 'not-installed', 'no opencode on PATH'],
      ['claude', 'not-installed', 'no claude on PATH'],
      ['codex', 'not-installed', 'no codex on PATH'],
    ])
    const text = await oac(['doctor'], NODE_ONLY)
    expect(text.code).toBe(0)
    expect(text.out).toContain('  - Claude Code: not installed (no claude on PATH), skipped\n')
    expect(text.out).toContain('oac doctor: every installed harness sees the tools\n')
  })

  it("names opencode's missing plugin package, without running opencode (it would fetch it), and exits 1", async () => {
    const bin = await tempDir('oac-doctor-bin-')
    // Were it run, the run would fail and say so.
    await writeFile(join(bin, 'opencode'), '#!/bin/sh\necho "doctor ran opencode" >&2\nexit 3\n')
    await chmod(join(bin, 'opencode'), 0o755)
    const { code, out } = await oac(['doctor', '--reporter', 'json'], `${bin}:${NODE_ONLY}`)
    expect(code).toBe(1)
    const report = JSON.parse(out) as { ok: boolean; harnesses: Array<{ harness: string; status: string; bin?: string; fixes: Array<{ says: string; command: { cwd: string; argv: string[] } }> }> }
    expect(report.ok).toBe(false)
    const opencode = report.harnesses.find((h) => h.harness === 'opencode')!
    expect(opencode).toMatchObject({ status: 'needs-step', bin: join(bin, 'opencode') })
    // Its package gives no version (it is no npm package), so the fix takes the newest.
    expect(opencode.fixes.map((fix) => fix.command)).toEqual([
      { cwd: project, argv: ['npm', 'install', '--prefix', join(project, '.opencode'), '--no-audit', '--no-fund', '@opencode-ai/plugin'] },
      { cwd: project, argv: ['npm', 'install', '--prefix', join(home, '.config/opencode'), '--no-audit', '--no-fund', '@opencode-ai/plugin'] },
    ])
    const text = await oac(['doctor'], `${bin}:${NODE_ONLY}`)
    expect(text.code).toBe(1)
    expect(text.out).toContain(`fix: run in ${project}: npm install --prefix ${join(project, '.opencode')} --no-audit --no-fund @opencode-ai/plugin\n`)
    expect(text.out).toContain('oac doctor: opencode does not see the tools yet\n')
  })

  it('a folder with no compiled tree exits 1 and says so; a bad flag exits 2', async () => {
    const empty = await tempDir('oac-doctor-empty-')
    const none = await oac(['doctor', '--target', empty], NODE_ONLY)
    expect(none.code).toBe(1)
    expect(none.err).toBe(`oac doctor: ${empty} holds no compiled tree (no .oac/manifest.<server>.json): run oac compile into it first, or point --target at the folder it wrote.\n`)
    const named = await oac(['doctor', '--server-name', 'other'], NODE_ONLY)
    expect(named.code).toBe(1)
    expect(named.err).toContain('holds no tree of other (it holds oac-tools)')
    for (const args of [['--scope', 'team'], ['--scope', 'user', '--target', 'x'], ['--timeout', '0'], ['--harness', 'claude']]) {
      const bad = await oac(['doctor', ...args], NODE_ONLY)
      expect(bad.code, args.join(' ')).toBe(2)
      expect(bad.err).toMatch(/^oac doctor: .+\nRun "oac --help" for usage\.\n$/)
    }
  })

  it('reads the harnesses from the files of a manifest of an earlier build, which does not name them', async () => {
    const earlier = await tempDir('oac-doctor-earlier-')
    await cp(project, earlier, { recursive: true })
    const manifest = join(earlier, '.oac/manifest.oac-tools.json')
    const { harnesses, ...rest } = JSON.parse(await readFile(manifest, 'utf8')) as { harnesses: string[] }
    expect(harnesses).toEqual(['opencode', 'claude', 'codex'])
    await writeFile(manifest, JSON.stringify(rest))
    const report = await doctor({ target: earlier, env: { PATH: NODE_ONLY, HOME: home } })
    // Copilot reads the .mcp.json written for Claude Code, so a tree of an earlier build names it too.
    expect(report.harnesses.map((h) => h.harness)).toEqual(['opencode', 'claude', 'codex', 'copilot'])
  })

  it("finds a user's install in their home by where each harness reads it there", async () => {
    const user = await tempDir('oac-doctor-user-')
    await mkdir(join(user, '.config'))
    await compile({ root: project, registry: 'agents/registry.ts:registry', harnesses: ['claude', 'kilo'], scope: 'user', target: user })
    const report = await doctor({ scope: 'user', env: { PATH: NODE_ONLY, HOME: user } })
    expect(report).toMatchObject({ ok: true, target: user, scope: 'user' })
    expect(report.harnesses.map((h) => [h.harness, h.status])).toEqual([
      ['claude', 'not-installed'],
      ['kilo', 'not-installed'],
    ])
  })
})
