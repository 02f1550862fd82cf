import { readFile } from 'node:fs/promises'
import { parseSync } from 'oxc-parser'
import { type AstNode, walk } from '../ast.js'
import { type AnyHookDefinition, EVENT_DECISIONS, type HookDecisionKind } from '../define/hooks.js'

/*
 * What a hook's `run` can decide, read from its code: the methods of its ctx it calls. Compile warns
 * about a decision a harness cannot carry only where the hook makes it, so that a guard that only
 * blocks is not warned about Codex's `ask`. Where the code does not tell (ctx passed on, spread, a
 * computed member), the hook may make any decision of its event.
 */

const DECISIONS = new Set<string>(Object.values(EVENT_DECISIONS).flat())
const FUNCTIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression'])

type Node = AstNode & Record<string, unknown>

/** The `run` function of the object literal a call at `offset` passes, innermost call first. */
function runFunction(program: AstNode, offset: number): Node | undefined {
  const calls: Node[] = []
  walk(program, (node) => {
    if (node.start > offset || node.end <= offset) return false
    if (node.type === 'CallExpression') calls.push(node as Node)
  })
  for (const call of calls.reverse()) {
    const options = (call.arguments as Node[] | undefined)?.[0]
    if (options?.type !== 'ObjectExpression') continue
    for (const property of options.properties as Node[]) {
      const key = property.key as Node | undefined
      if (property.type !== 'Property' || property.computed || key?.type !== 'Identifier' || key.name !== 'run') continue
      const value = property.value as Node
      return FUNCTIONS.has(value.type) ? value : undefined
    }
  }
  return undefined
}

/** The decisions a `run` function makes through its second parameter, or undefined when its code does not tell. */
function decisionsOf(run: Node): HookDecisionKind[] | undefined {
  const ctx = (run.params as Node[])[1]
  if (!ctx) return []
  if (ctx.type === 'ObjectPattern') {
    const names: HookDecisionKind[] = []
    for (const property of ctx.properties as Node[]) {
      const key = property.key as Node | undefined
      if (property.type !== 'Property' || property.computed || key?.type !== 'Identifier') return undefined
      if (DECISIONS.has(key.name as string)) names.push(key.name as HookDecisionKind)
    }
    return names
  }
  if (ctx.type !== 'Identifier') return undefined
  const name = ctx.name as string
  const found = new Set<HookDecisionKind>()
  let escapes = false
  walk(run.body as AstNode, (node, parent, key) => {
    if (node.type !== 'Identifier' || (node as Node).name !== name) return
    // A member name or an object key of that spelling is not the parameter.
    if ((key === 'property' && parent?.type === 'MemberExpression' && !(parent as Node).computed) || (key === 'key' && !(parent as Node).computed)) return
    const member = parent as Node | undefined
    if (member?.type === 'MemberExpression' && key === 'object' && !member.computed) {
      const property = (member.property as Node).name as string
      if (DECISIONS.has(property)) found.add(property as HookDecisionKind)
      return
    }
    escapes = true
  })
  return escapes ? undefined : [...found]
}

/** The offset of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', offset)
    if (next === -1) return text.length
    offset = next + 1
  }
  return offset + column - 1
}

/** What the hook defined at `at` in `text` decides, or undefined where its code does not tell. */
export function hookDecisions(file: string, text: string, at: { line: number; column: number }): HookDecisionKind[] | undefined {
  const parsed = parseSync(file, text)
  if (parsed.errors.length > 0) return undefined
  const run = runFunction(parsed.program as unknown as AstNode, offsetOf(text, at.line, at.column))
  return run ? decisionsOf(run) : undefined
}

/** Each hook's decisions, where its module's code tells them. */
export async function readHookDecisions(hooks: readonly AnyHookDefinition[]): Promise<Map<AnyHookDefinition, HookDecisionKind[]>> {
  const decisions = new Map<AnyHookDefinition, HookDecisionKind[]>()
  const texts = new Map<string, Promise<string | undefined>>()
  for (const hook of hooks) {
    const file = hook.source.file
    if (!texts.has(file)) texts.set(file, readFile(file, 'utf8').catch(() => undefined))
    const text = await texts.get(file)
    const found = text === undefined ? undefined : hookDecisions(file, text, hook.source)
    if (found) decisions.set(hook, found)
  }
  return decisions
}
