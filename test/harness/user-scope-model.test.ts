import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import type { SeenRequest, Turn } from './scripted-model.js'

/*
 * A user-scope install (`scope: 'user'`) through each of the nine real harness CLIs against the scripted
 * model (scripted-model.ts; each CLI driven as drivers.ts says): test/fixtures/user-scope's `writing`
 * registry installed into a fresh home as `writing-tools`, and the CLI started in a fresh folder that is
 * neither that project nor the home. The CLI finds the MCP server in the home's settings (or the tool
 * files, extensions and plugins in its user folders) and the scripts in ~/.local/share/oac/writing-tools/;
 * its model calls
 * - word_count, whose result names the folder the tool ran in: the CLI's own folder;
 * - delete_note on keep-a: the user-scope hook `keep` blocks it, and the model reads the reason;
 * - delete_note on draft: the hook lets it run.
 * Which registries each of the nine CLIs sees in a home is test/harness/user-scope.test.ts; here, that
 * the real CLI acts on what it reads there.
 *   npx vitest run --config vitest.harness.config.ts test/harness/user-scope-model.test.ts
 */

const fixture = join(repoRoot, 'test/fixtures/user-scope')
const SERVER = 'writing-tools'

/**
 * The text the model reads for a delete_note call the hook blocked with `reason` (the forms
 * test/harness/hooks.test.ts observed per CLI), or undefined where the hook is not part of the proof:
 * Codex runs a user's hooks only once the user trusted each in its /hooks screen (a hook of the home
 * starts `untrusted` and does not run), and this file does not forge that trust: Codex has no entry.
 */
const BLOCKED: Partial<Record<Harness, (reason: string, tool: string) => string>> = {
  claude: (reason, tool) => `PreToolUse:${tool} hook error: ${reason}`,
  gemini: (reason) => `Tool execution blocked: ${reason}`,
  copilot: (reason) => `Denied by preToolUse hook: ${reason}`,
  qwen: (reason) => reason,
  // The harnesses that run hooks in-process hand the model the reason as the tool's error.
  opencode: (reason) => reason,
  kilo: (reason) => reason,
  pi: (reason) => reason,
  omp: (reason) => reason,
}

const cleanup: string[] = []
let source: string

beforeAll(async () => {
  source = await copyProject(fixture, 'oac-user-scope-model-src-')
  cleanup.push(source)
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  const blocked = BLOCKED[id]

  describe(driver.title, () => {
    let plan: Plan
    let elsewhere: string
    let requests: SeenRequest[]

    /** The text of the tool result the `n`th call got back (each call's result is in the request after it), as the driver unwraps it. */
    const resultOf = (n: number) => {
      const results = requests[n + 1]!.toolResults
      expect(results).toHaveLength(1)
      return driver.resultText(results[0]!.text).trim()
    }

    beforeAll(async () => {
      await driver.install()
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      ;({ plan } = await compile({ root: source, registry: 'agents/registry.ts:writing', scope: 'user', target: home, serverName: SERVER }))
      // Resolved, as a process's cwd is: the tool reports the folder it runs in.
      elsewhere = await realpath(await mkdtemp(join(tmpdir(), 'oac-user-scope-elsewhere-')))
      cleanup.push(elsewhere)
      const main: Turn[] = [
        { calls: [toolCall(id, plan, 'word_count', { text: 'one two three' })] },
        ...(blocked ? [{ calls: [toolCall(id, plan, 'delete_note', { name: 'keep-a' })] }, { calls: [toolCall(id, plan, 'delete_note', { name: 'draft' })] }] : []),
        { text: 'done' },
      ]
      // `converse` checks that the run ended well and asked for each turn of the script, no more.
      const model = await converse(driver, { project: elsewhere, plan, home, env }, { main })
      requests = model.conversation('main')
    })

    it('runs word_count from the home in the folder the CLI was started in', () => {
      expect(plan.scope).toBe('user')
      expect(resultOf(0)).toBe(`3 words, counted in ${elsewhere}.`)
    })

    it.skipIf(!blocked)("runs the home's beforeTool hook: delete_note on keep-a is blocked with its reason, on draft it runs", () => {
      expect(resultOf(1)).toBe(blocked!('keep-a is kept', harness(id).hooks.toolName(SERVER, 'delete_note')))
      expect(resultOf(2)).toBe('Deleted draft.')
    })
  })
}
