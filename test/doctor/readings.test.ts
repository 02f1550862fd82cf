import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { HARNESS_TABLE, harness } from '../../src/compile/harnesses/index.js'
import type { DoctorNames, DoctorPlace, DoctorReading } from '../../src/compile/harnesses/types.js'
import type { Harness } from '../../src/define/types.js'

/**
 * Each harness's doctor entry reads what its real CLI printed. The fixtures are the CLIs' own output
 * (labelled with the version), captured in the playground compiled for every harness, in a fresh home
 * (nothing trusted) and after the user's steps; the target's and home's paths are `<target>` and `<home>`.
 */

interface Fixture {
  cli: string
  command: string
  stdout: string
  stderr: string
}

const fixture = (name: string): Fixture => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${name}.json`), 'utf8')) as Fixture

const PLAYGROUND_TOOLS = ['convert_units', 'delete_report', 'forecast', 'forecast_chart', 'sample_value', 'search_issues']
const place = (scope: 'project' | 'user'): DoctorPlace => ({ target: '<target>', scope, home: '<home>', env: {}, server: 'oac-tools' })

function read(id: Harness, name: string, names: DoctorNames, scope: 'project' | 'user' = 'project'): DoctorReading {
  const { probe } = harness(id).doctor
  if ('unprobed' in probe) throw new Error(`${id} has no probe`)
  const output = fixture(name)
  // The fixture was made with the command the entry runs.
  expect(output.command).toBe([HARNESS_TABLE[id].proof.cli.bin, ...probe.args(names)].join(' '))
  return probe.read(output, names, place(scope))
}

const server = { server: 'oac-tools', tools: [] }

describe('the doctor reads each CLI as it printed', () => {
  it.each([
    ['claude', 'claude-untrusted', 'approve'],
    ['codex', 'codex-untrusted', 'trust'],
    ['gemini', 'gemini-untrusted', 'trust'],
    ['copilot', 'copilot-untrusted', 'trust'],
    ['qwen', 'qwen-unapproved', 'approve'],
  ] as const)('%s in a fresh home (%s) waits for the step "%s", which the entry has a fix for', (id, name, step) => {
    expect(read(id, name, server)).toEqual({ ready: false, step })
    expect(Object.keys(HARNESS_TABLE[id].doctor.fixes)).toContain(step)
  })

  it.each([
    ['claude', 'claude-ready', 'server oac-tools connected'],
    ['codex', 'codex-ready', 'server oac-tools configured'],
    ['gemini', 'gemini-ready', 'server oac-tools connected'],
    ['copilot', 'copilot-ready', 'server oac-tools configured'],
    ['qwen', 'qwen-ready', 'server oac-tools connected'],
  ] as const)('%s after the steps (%s) sees the server', (id, name, sees) => {
    expect(read(id, name, server)).toEqual({ ready: true, sees })
  })

  it('another server name is not ours, in every list', () => {
    const other = { server: 'oac-tool', tools: [] }
    expect(read('claude', 'claude-ready', other)).toEqual({ ready: false, problem: 'does not list the server oac-tool' })
    expect(read('gemini', 'gemini-ready', other)).toEqual({ ready: false, problem: 'does not list the server oac-tool' })
    expect(read('qwen', 'qwen-ready', other)).toEqual({ ready: false, problem: 'does not list the server oac-tool' })
    expect(read('copilot', 'copilot-ready', other)).toEqual({ ready: false, step: 'trust' })
  })

  it("an unlisted server in a user's home is a problem, not a folder to trust (Codex, Copilot)", () => {
    expect(read('codex', 'codex-untrusted', server, 'user')).toEqual({ ready: false, problem: 'does not list the server oac-tools' })
    expect(read('copilot', 'copilot-untrusted', server, 'user')).toEqual({ ready: false, problem: 'does not list the server oac-tools' })
  })

  it.each([
    ['opencode', 'opencode-ready', 'agent build'],
    ['kilo', 'kilo-ready', 'agent code'],
  ] as const)("%s's default agent is given every tool of the tree (%s)", (id, name, via) => {
    expect(read(id, name, { server: 'oac-tools', tools: PLAYGROUND_TOOLS })).toEqual({ ready: true, sees: `6 tools (${via})` })
    expect(read(id, name, { server: 'oac-tools', tools: [...PLAYGROUND_TOOLS, 'release_notes'] })).toEqual({
      ready: false,
      problem: `does not give its agent the tools release_notes (${via})`,
    })
  })

  it("Codex's hooks: each one untrusted gets the trust its app-server names; trusted, they are ready", () => {
    const { probe } = harness('codex').doctor.hooks!
    const untrusted = fixture('codex-hooks-untrusted') as Fixture & { stdin: string[] }
    // The fixture was made with the command and the requests the entry sends.
    expect(untrusted.command).toBe(['codex', ...probe.args(server)].join(' '))
    expect(untrusted.stdin).toEqual(probe.session!.lines(place('project')))
    const key = '<target>/.codex/hooks.json:pre_tool_use:0:0'
    const hash = JSON.parse(untrusted.stdout.split('\n').find((line) => line.startsWith('{"id":1,'))!).result.data[0].hooks[0].currentHash as string
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(probe.read(untrusted, server, place('project'))).toEqual({
      ready: false,
      fix: {
        says: 'has not trusted 1 hook of .codex/hooks.json, which it skips without a word',
        ask: 'run `codex` in <target> and choose "Trust all and continue" (or trust each in /hooks)',
        edits: [{ file: '<home>/.codex/config.toml', format: 'toml', path: ['hooks', 'state', key, 'trusted_hash'], op: 'set', value: hash }],
      },
    })
    expect(probe.read(fixture('codex-hooks-trusted'), server, place('project'))).toEqual({ ready: true, sees: '1 hook trusted' })
    // Hooks of another folder's file are not the target's.
    expect(probe.read(untrusted, server, { ...place('project'), target: '<other>' })).toEqual({ ready: true, sees: '0 hooks trusted' })
  })

  it('output that is not the JSON a list command prints is a problem naming its first line', () => {
    const { probe } = harness('codex').doctor
    if ('unprobed' in probe) throw new Error('codex has a probe')
    expect(probe.read({ stdout: 'Error: config.toml: invalid\nmore', stderr: '' }, server, place('project'))).toEqual({
      ready: false,
      problem: 'printed no server list: Error: config.toml: invalid',
    })
  })
})
