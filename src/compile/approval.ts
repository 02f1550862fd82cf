import type { AnyToolDefinition, RegistryDefinition, ToolApprovalRules, ToolEffects, ToolSelector } from '../define/types.js'
import type { Findings } from './findings.js'
import type { McpServerApproval, ToolApproval } from './plan.js'

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

/**
 * Reports the names the rules give that are neither a tool of the registry nor one of the config's MCP
 * servers (`servers`), whole (`github`) or one tool of it (`github/create_issue`).
 */
export function checkApprovalNames(rules: ApprovalRules, name: string, tools: readonly AnyToolDefinition[], servers: readonly string[], registry: RegistryDefinition, findings: Findings): void {
  const known = tools.map((tool) => tool.name)
  for (const key of ['allow', 'ask'] as const) {
    for (const selector of rules[key]) {
      if (typeof selector !== 'string' || known.includes(selector) || servers.includes(serverTool(selector)?.server ?? selector)) continue
      const listed = [...(known.length ? [`Its tools: ${known.join(', ')}.`] : []), ...(servers.length ? [`Its MCP servers: ${servers.join(', ')}.`] : [])]
      findings.error(
        'config-approval-unknown-tool',
        `Config "${name}"'s approval.${key} names the tool "${selector}", which the registry does not define.${listed.length ? ` ${listed.join(' ')}` : ''}`,
        "Name one of the registry's tools, an MCP server (every tool of it) or one tool of a server as \"<server>/<tool>\", or select tools by an effect they declare.",
        registry.source,
      )
    }
  }
}

/** A selector naming one tool of a server, `<server>/<tool>`, in its two parts. */
function serverTool(selector: string): { server: string; tool: string } | undefined {
  const slash = selector.indexOf('/')
  return slash > 0 && slash < selector.length - 1 ? { server: selector.slice(0, slash), tool: selector.slice(slash + 1) } : undefined
}

/**
 * What the rules decide for the tools of the MCP server `server`: every tool, where they name the server,
 * and single tools, where they name `<server>/<tool>` (`ask` winning over `allow`, and a tool's rule kept
 * only where it differs from the server's). Effects select none of them: a server's tools declare none.
 */
export function serverApproval(server: string, rules: ApprovalRules): McpServerApproval | undefined {
  const names = (key: 'allow' | 'ask') => rules[key].filter((selector): selector is string => typeof selector === 'string')
  const all: ToolApproval | undefined = names('ask').includes(server) ? 'ask' : names('allow').includes(server) ? 'allow' : undefined
  const tools: Record<string, ToolApproval> = {}
  for (const key of ['allow', 'ask'] as const) {
    for (const selector of names(key)) {
      const named = serverTool(selector)
      if (named?.server === server && all !== 'ask' && all !== key) tools[named.tool] = key
    }
  }
  const decided = Object.keys(tools).length > 0
  return all === undefined && !decided ? undefined : { ...(all && { all }), ...(decided && { tools }) }
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
