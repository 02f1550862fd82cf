import type { AnyToolDefinition, RegistryDefinition, ToolApprovalRules, ToolEffects, ToolSelector } from '../define/types.js'
import type { Findings } from './findings.js'
import type { ToolApproval } from './plan.js'

/** The effects a tool may declare, in the order plans list them. */
export const TOOL_EFFECTS = ['readOnly', 'destructive', 'idempotent', 'external'] as const satisfies ReadonlyArray<keyof ToolEffects>

type Effect = (typeof TOOL_EFFECTS)[number]

/** A config's approval rules, checked: each selector a tool name or an effect. */
export interface ApprovalRules {
  allow: readonly ToolSelector[]
  ask: readonly ToolSelector[]
}

const NO_RULES: ApprovalRules = { allow: [], ask: [] }

function isEffect(value: unknown): value is Effect {
  return (TOOL_EFFECTS as readonly unknown[]).includes(value)
}

/** Config `name`'s approval rules; every selector that is neither a tool name nor `{ effect }` is reported. */
export function approvalRules(rules: ToolApprovalRules | undefined, name: string, registry: RegistryDefinition, findings: Findings): ApprovalRules {
  if (rules === undefined) return NO_RULES
  if (typeof rules !== 'object' || rules === null) {
    findings.error('config-approval-invalid', `Config "${name}"'s approval is not an object.`, "Write approval: { allow: [...], ask: [...] }, listing tool names or { effect: 'readOnly' }.", registry.source)
    return NO_RULES
  }
  const list = (key: 'allow' | 'ask'): ToolSelector[] => {
    const selectors: unknown = rules[key]
    if (selectors === undefined) return []
    if (!Array.isArray(selectors)) {
      findings.error('config-approval-invalid', `Config "${name}"'s approval.${key} is not a list.`, `Write approval.${key} as a list of tool names and { effect: ... } entries.`, registry.source)
      return []
    }
    return selectors.filter((selector: unknown, i): selector is ToolSelector => {
      if (typeof selector === 'string') return true
      const effect = typeof selector === 'object' && selector !== null ? (selector as { effect?: unknown }).effect : undefined
      if (isEffect(effect)) return true
      findings.error(
        'config-approval-invalid',
        `Config "${name}"'s approval.${key}[${i}] is ${JSON.stringify(selector) ?? String(selector)}, neither a tool name nor an effect.`,
        `Name a tool ("search_issues") or an effect: ${TOOL_EFFECTS.map((effect) => `{ effect: '${effect}' }`).join(', ')}.`,
        registry.source,
      )
      return false
    })
  }
  return { allow: list('allow'), ask: list('ask') }
}

/** Reports the tool names the rules give that no tool of the registry has. */
export function checkApprovalNames(rules: ApprovalRules, name: string, tools: readonly AnyToolDefinition[], registry: RegistryDefinition, findings: Findings): void {
  const known = tools.map((tool) => tool.name)
  for (const key of ['allow', 'ask'] as const) {
    for (const selector of rules[key]) {
      if (typeof selector !== 'string' || known.includes(selector)) continue
      findings.error(
        'config-approval-unknown-tool',
        `Config "${name}"'s approval.${key} names the tool "${selector}", which the registry does not define.${known.length ? ` Its tools: ${known.join(', ')}.` : ''}`,
        'Name one of the registry\'s tools, or select tools by an effect they declare.',
        registry.source,
      )
    }
  }
}

function selects(selector: ToolSelector, tool: AnyToolDefinition, effects: ToolEffects): boolean {
  return typeof selector === 'string' ? selector === tool.name : effects[selector.effect] === true
}

/** What the rules decide for a tool: `ask` wins over `allow`; undefined when neither selects it. */
export function toolApproval(tool: AnyToolDefinition, effects: ToolEffects, rules: ApprovalRules): ToolApproval | undefined {
  if (rules.ask.some((selector) => selects(selector, tool, effects))) return 'ask'
  if (rules.allow.some((selector) => selects(selector, tool, effects))) return 'allow'
  return undefined
}

/**
 * The effects a tool declares, checked: only known effects, each a boolean, listed in TOOL_EFFECTS
 * order (so the plan does not depend on the order they were written in). Undefined when it names none.
 */
export function toolEffects(tool: AnyToolDefinition, findings: Findings): ToolEffects | undefined {
  const declared: unknown = tool.effects
  if (declared === undefined) return undefined
  const label = `Tool "${tool.name}"`
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    findings.error('tool-effects-invalid', `${label}'s effects is not an object.`, `Write effects: { readOnly: true } (any of ${TOOL_EFFECTS.join(', ')}).`, tool.source)
    return undefined
  }
  const given = declared as Record<string, unknown>
  for (const key of Object.keys(given).filter((key) => !isEffect(key))) {
    findings.error('tool-effects-invalid', `${label}'s effects has "${key}", which is not an effect.`, `Use ${TOOL_EFFECTS.join(', ')}.`, tool.source)
  }
  const effects: ToolEffects = {}
  for (const effect of TOOL_EFFECTS) {
    const value = given[effect]
    if (value === undefined) continue
    if (typeof value !== 'boolean') {
      findings.error('tool-effects-invalid', `${label}'s effects.${effect} is ${JSON.stringify(value) ?? String(value)}, not true or false.`, `Set effects.${effect} to true or false.`, tool.source)
      continue
    }
    effects[effect] = value
  }
  if (effects.readOnly && effects.destructive) {
    findings.error('tool-effects-invalid', `${label} declares itself both readOnly and destructive.`, 'Keep the one that is true: a tool that only reads destroys nothing.', tool.source)
  }
  return Object.keys(effects).length > 0 ? effects : undefined
}
