import type { RegistryDefinition } from '../define/types.js'
import type { ResultPart } from '../load/tool-results.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { harness } from './harnesses/index.js'
import type { PlannedTool } from './plan.js'

const CODE = 'tool-result-text-only'

const RETURNED: Record<ResultPart, string> = {
  images: 'an image a tool returns with ctx.result({ images }) does not reach the model',
  details: "a result's details (ctx.result({ details }), ctx.error(message, { details })) reach no one",
}

/**
 * One warning per selected harness whose tool route loses a part of a rich result (its description's
 * `results`), naming the tools it is given natively that can return that part: those whose `run`
 * calls `ctx.result` (or `ctx.error`, for details), and those whose code does not tell (`returns` has
 * no entry for them), since what a tool returns is known only when it runs.
 */
export function warnTextOnlyResults(registry: RegistryDefinition, config: ResolvedConfig, tools: readonly PlannedTool[], returns: ReadonlyMap<string, readonly ResultPart[]>, findings: Findings): void {
  if (!config.nativeTools) return
  const native = tools.filter((tool) => tool.json).map((tool) => tool.name)
  const returning = (part: ResultPart) => native.filter((tool) => returns.get(tool)?.includes(part) ?? true)
  for (const id of config.harnesses) {
    const { title, results } = harness(id)
    const lost = (['images', 'details'] as const).flatMap((part) => {
      const carried = results[part]
      const named = returning(part)
      return typeof carried === 'object' && named.length > 0 ? [{ part, says: carried.lost, named }] : []
    })
    if (lost.length === 0) continue
    const sentences = lost.map(({ part, says, named }) => `${title} ${says}: ${RETURNED[part]} (${named.map((tool) => `"${tool}"`).join(', ')}).`)
    findings.warning(
      CODE,
      `${sentences.join(' ')} The tools named are those whose code calls ctx.result or ctx.error, or does not tell what it returns.`,
      `Where the model or the user needs what a tool's images or details hold, say it in the tool's text too, or leave ${id} out of the config's harnesses. Otherwise turn this off with the config's diagnostics: { '${CODE}': 'off' } (or --diagnostic ${CODE}=off).`,
      registry.source,
    )
  }
}
