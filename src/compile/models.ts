import type { ConfigProfile, Harness, ModelSpec } from '../define/types.js'

/** One harness's model id from a spec; a string naming a key of `profile.models` is an alias for that spec. */
function modelFor(spec: ModelSpec | undefined, harness: Harness, profile: ConfigProfile): string | undefined {
  const id = typeof spec === 'string' ? spec : spec?.[harness]
  if (id === undefined) return undefined
  const models = profile.models ?? {}
  if (!Object.hasOwn(models, id)) return id
  const aliased = models[id]
  return typeof aliased === 'string' ? aliased : aliased?.[harness]
}

/**
 * The model per harness: the agent's own (a model id, an alias, or one per harness), else the
 * config's `model` (likewise), else none, which leaves the harness's default.
 */
export function resolveModels(agentModel: ModelSpec | undefined, profile: ConfigProfile, harnesses: readonly Harness[]): Partial<Record<Harness, string>> {
  const models: Partial<Record<Harness, string>> = {}
  for (const harness of harnesses) {
    const model = modelFor(agentModel, harness, profile) ?? modelFor(profile.model, harness, profile)
    if (model !== undefined) models[harness] = model
  }
  return models
}
