import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { compilePlan } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { HARNESSES } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import { emitHooks } from '../../src/emit/hooks.js'
import type { MergeFile, OutputFile, OwnedFile } from '../../src/emit/types.js'
import { loadRegistry } from '../../src/load/index.js'
import { writeOutputs } from '../../src/write/index.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

const root = resolve(repoRoot, 'test/fixtures/hooks')
let plan: Plan

beforeAll(async () => {
  const loaded = await loadRegistry('registries.ts:all', root)
  plan = compilePlan(loaded, { root }).plan!
})

const file = (files: OutputFile[], path: string) => files.find((candidate) => candidate.path === path)
const owned = (files: OutputFile[], path: string) => (file(files, path) as OwnedFile).content

describe('registrations of command harnesses', () => {
  it("a matcher group per hook in each event's list of the harness's settings, matchers anchored on the names its hooks see", () => {
    const files = emitHooks(plan)
    const claude = file(files, '.claude/settings.json') as MergeFile
    const guard = claude.entries.find((entry) => JSON.stringify(entry.value).includes('guard.mjs'))
    expect(guard?.keyPath.slice(0, 3)).toEqual(['hooks', 'PreToolUse', '[{}]'])
    expect(guard?.value).toEqual({
      matcher: '^(?:mcp__oac-tools__delete_report|Bash)$',
      hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/scripts/hooks/guard.mjs" --harness claude', timeout: 15 }],
    })
    // Each event in its list; a hook of every tool, or of no tool, has no matcher; its timeout a little over the hook's own.
    const events = claude.entries.map((entry) => entry.keyPath[1])
    expect(new Set(events)).toEqual(new Set(['PreToolUse', 'PostToolUse', 'SessionStart', 'UserPromptSubmit', 'Stop']))
    expect(claude.entries.find((entry) => JSON.stringify(entry.value).includes('slow.mjs'))?.value).toEqual({
      hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/scripts/hooks/slow.mjs" --harness claude', timeout: 6 }],
    })
    const gemini = file(files, '.gemini/settings.json') as MergeFile
    expect(gemini.entries.find((entry) => entry.keyPath[1] === 'SessionStart')?.value).toEqual({
      hooks: [{ type: 'command', command: 'node "${GEMINI_PROJECT_DIR}/scripts/hooks/welcome.mjs" --harness gemini', timeout: 15_000, name: 'welcome', description: 'Tells the model where it is.' }],
    })
    expect(gemini.entries.find((entry) => JSON.stringify(entry.value).includes('shaper.mjs'))?.value).toMatchObject({ matcher: '^(?:mcp_oac-tools_word_count)$' })
    const codex = file(files, '.codex/hooks.json') as MergeFile
    expect(codex.entries.find((entry) => JSON.stringify(entry.value).includes('guard.mjs'))?.value).toMatchObject({ matcher: '^(?:mcp__oac_tools__delete_report|Bash)$' })
  })

  it("Copilot's is a hooks file of our own, in its shape", () => {
    const copilot = JSON.parse(owned(emitHooks(plan), '.github/hooks/oac-tools.json')) as { version: number; hooks: Record<string, Array<Record<string, unknown>>> }
    expect(copilot.version).toBe(1)
    expect(Object.keys(copilot.hooks)).toEqual(['preToolUse', 'sessionStart', 'postToolUse', 'agentStop', 'userPromptSubmitted'])
    expect(copilot.hooks.preToolUse?.[0]).toEqual({
      type: 'command',
      bash: 'node "$COPILOT_PROJECT_DIR/scripts/hooks/guard.mjs" --harness copilot',
      timeoutSec: 15,
      matcher: '^(?:oac-tools-delete_report|bash|powershell)$',
    })
  })

  it('one merge per settings file: the MCP server, the approval rules and the hooks together', () => {
    const files = emitAll({ ...plan, harnesses: [...HARNESSES] })
    const paths = files.map((candidate) => candidate.path)
    expect(paths.filter((path) => path === '.gemini/settings.json')).toHaveLength(1)
    const gemini = file(files, '.gemini/settings.json') as MergeFile
    expect(gemini.entries.map((entry) => entry.keyPath[0])).toEqual(expect.arrayContaining(['mcpServers', 'hooks']))
    expect(emitHooks({ ...plan, hooks: [] })).toEqual([])
  })
})

describe('hooks of one agent', () => {
  it("go into its Claude Code agent file, not the settings; elsewhere they are registered for every agent", () => {
    const files = emitAll({ ...plan, harnesses: ['claude', 'codex'] })
    const agent = owned(files, '.claude/agents/helper.md')
    expect(agent).toContain('hooks:\n  PostToolUse:\n    - hooks:\n        - type: command\n          command: node "$CLAUDE_PROJECT_DIR/scripts/hooks/helper-only.mjs" --harness claude')
    expect(JSON.stringify(file(files, '.claude/settings.json'))).not.toContain('helper-only')
    expect(JSON.stringify(file(files, '.codex/hooks.json'))).toContain('scripts/hooks/helper-only.mjs')
  })
})

describe("a user's own hooks in a settings file", () => {
  let target: string
  beforeEach(async () => {
    target = await tempDir('oac-hook-merge-')
  })
  afterEach(() => rm(target, { recursive: true, force: true }))

  it('stay, byte for byte around ours, and the file is theirs again once our hooks go', async () => {
    const user = '{\n  // the team\'s own\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./lint.sh" }] }\n    ]\n  },\n  "model": "opus"\n}\n'
    await mkdir(join(target, '.claude'), { recursive: true })
    await writeFile(join(target, '.claude/settings.json'), user)
    const write = (files: OutputFile[]) => writeOutputs(files, { target, mode: 'write', force: false, owner: 'oac-tools' })
    const ours = emitHooks({ ...plan, harnesses: ['claude'] })
    expect((await write(ours)).diagnostics).toEqual([])
    const merged = await readFile(join(target, '.claude/settings.json'), 'utf8')
    // The user's group is first in its list; ours follow it, and our other events are new lists.
    expect(merged.startsWith(user.slice(0, user.indexOf('./lint.sh"}] }') + './lint.sh"}] }'.length))).toBe(true)
    expect(merged).toContain('"command": "node \\"$CLAUDE_PROJECT_DIR/scripts/hooks/guard.mjs\\" --harness claude"')
    // A hook renamed: its old group goes, the new one comes; then all go.
    const renamed = ours.map((out) => (out.kind === 'merge' ? { ...out, entries: out.entries.slice(1) } : out))
    expect((await write(renamed)).diagnostics).toEqual([])
    expect(await readFile(join(target, '.claude/settings.json'), 'utf8')).not.toContain('guard.mjs')
    expect((await write([{ kind: 'merge', path: '.claude/settings.json', format: 'json', entries: [] }])).diagnostics).toEqual([])
    expect(await readFile(join(target, '.claude/settings.json'), 'utf8')).toBe(user)
  })
})

describe('in-process plugins', () => {
  it('one per in-process harness, importing the hook scripts it runs', () => {
    const files = emitHooks(plan)
    expect(files.filter((out) => out.kind === 'owned' && out.path.endsWith('.ts')).map((out) => out.path)).toEqual([
      '.opencode/plugins/oac-tools-hooks.ts',
      '.pi/extensions/oac-tools-hooks.ts',
      '.omp/extensions/oac-tools-hooks.ts',
      '.kilo/plugins/oac-tools-hooks.ts',
      '.cline/plugins/oac-tools-hooks.ts',
    ])
    expect(owned(files, '.opencode/plugins/oac-tools-hooks.ts')).toContain('const hook0 = load("../../scripts/hooks/guard.mjs") // guard')
  })
})
