import { expect } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import type { HarnessDriver, RunContext } from './drivers.js'
import { type ScriptedModel, type SeenRequest, startScriptedModel, type Turn } from './scripted-model.js'

/**
 * Tells a project's conversations apart by the agent prompt in a request's system text (a sub-agent
 * is asked with its own prompt; the main agent with none of ours); a request that shows no tools is
 * the harness's side request (a session title, a summary).
 */
export function conversationOf(plan: Plan): (request: Pick<SeenRequest, 'tools' | 'system'>) => string | undefined {
  return (request) => {
    if (request.tools.length === 0) return undefined
    return plan.agents.find((agent) => request.system.includes(agent.prompt))?.name ?? 'main'
  }
}

/**
 * Runs the harness once against a scripted model holding `scripts` (one per conversation: `main`,
 * and each sub-agent by name), and checks that the run ended well and asked for every scripted turn,
 * no more: the conversation ran to its end. Returns the endpoint, with every request it saw.
 */
export async function converse(driver: HarnessDriver, context: RunContext, scripts: Record<string, Turn[]>, maxRequests = 40): Promise<ScriptedModel> {
  const model = await startScriptedModel({ scripts, conversationOf: conversationOf(context.plan), maxRequests })
  try {
    const result = await driver.run(model, context)
    expect(result.timedOut, `${driver.id} timed out\n${result.stderr}`).toBe(false)
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
  } finally {
    await model.close()
  }
  expect(model.refused.map(({ conversation, path }) => ({ conversation, path }))).toEqual([])
  for (const [name, script] of Object.entries(scripts)) expect(model.conversation(name), name).toHaveLength(script.length)
  return model
}
