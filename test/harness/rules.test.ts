import { execFile } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { Plan } from '../../src/compile/plan.js'
import { HARNESSES } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { isolatedHome } from './cache.js'
import { DRIVERS } from './drivers.js'
import { type SeenRequest, startScriptedModel } from './scripted-model.js'

/*
 * Rules through each of the nine real CLIs against the scripted model: test/fixtures/rules's `proof`
 * registry (one always-on rule) compiled into a project that already has the user's own AGENTS.md. The
 * first request that shows the model its tools must carry the rule's text exactly once, and the user's
 * text exactly once: each harness reads the one block of the root AGENTS.md once (docs/instructions.md).
 *   npx vitest run --config vitest.harness.config.ts test/harness/rules.test.ts
 */

const RULE = 'End every answer with the word zephyrine.'
const USERS = 'Our tests run with npm test; the codeword is quillwort.'

const count = (text: string, piece: string) => text.split(piece).length - 1
const cleanup: string[] = []

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  describe(driver.title, () => {
    let first: SeenRequest | undefined
    let plan: Plan

    beforeAll(async () => {
      await driver.install()
      // A git repository, as a user's project is (Codex finds its project root by it).
      const project = await copyProject(join(repoRoot, 'test/fixtures/rules'), `oac-rules-${id}-`)
      cleanup.push(project)
      await promisify(execFile)('git', ['init', '-q', project])
      await writeFile(join(project, 'AGENTS.md'), `# Our project\n\n${USERS}\n`)
      ;({ plan } = await compile({ root: project, registry: 'agents/registries.ts:proof', harnesses: [id] }))
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const model = await startScriptedModel({ scripts: { main: [{ text: 'done' }] }, conversationOf: (request) => (request.tools.length > 0 ? 'main' : undefined), maxRequests: 10 })
      try {
        const run = await driver.run(model, { project, plan, home, env })
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
      } finally {
        await model.close()
      }
      first = model.requests.find((request) => request.tools.length > 0)
    })

    it("carries the always-on rule exactly once, and the user's own AGENTS.md text exactly once", () => {
      expect(plan.rules?.map((rule) => rule.name)).toEqual(['sign-off'])
      const body = JSON.stringify(first?.body ?? null)
      expect({ rule: count(body, RULE), users: count(body, USERS) }).toEqual({ rule: 1, users: 1 })
    })
  })
}
