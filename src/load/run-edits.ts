import { parseSync } from 'oxc-parser'
import { type AstNode, walk } from '../ast.js'

/** What evaluating a module can depend on, besides what runs inside its tools' `run` bodies. */
interface Shape {
  /** The text with every such body replaced by the same placeholder. */
  masked: string
  /** Where each call outside those bodies starts (`line:column`): a definition records its call's place. */
  calls: string
}

type Node = AstNode & Record<string, unknown>

const CALLS = new Set(['CallExpression', 'NewExpression', 'TaggedTemplateExpression'])

/** The body of the `run` function given inline to a `defineTool({ ... })` call, if there is one. */
function runBody(call: Node): AstNode | undefined {
  const callee = call.callee as Node
  const name = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberExpression' ? (callee.property as Node).name : undefined
  const options = (call.arguments as Node[] | undefined)?.[0]
  if (name !== 'defineTool' || options?.type !== 'ObjectExpression') return undefined
  for (const property of options.properties as Node[]) {
    const key = property.key as Node | undefined
    if (property.type !== 'Property' || property.computed || !key || (key.name ?? key.value) !== 'run') continue
    const value = property.value as Node
    return value.type === 'FunctionExpression' || value.type === 'ArrowFunctionExpression' ? (value.body as AstNode) : undefined
  }
  return undefined
}

function shapeOf(file: string, text: string): Shape | undefined {
  const parsed = parseSync(file, text)
  if (parsed.errors.length > 0) return undefined
  const bodies: AstNode[] = []
  const calls: number[] = []
  const runBodies = new Set<AstNode>()
  walk(parsed.program as unknown as AstNode, (node) => {
    if (runBodies.has(node)) {
      bodies.push(node)
      return false
    }
    if (!CALLS.has(node.type)) return true
    calls.push(node.start)
    if (node.type === 'CallExpression') {
      const body = runBody(node as Node)
      if (body) runBodies.add(body)
    }
    return true
  })
  let masked = ''
  let from = 0
  for (const body of bodies) {
    masked += `${text.slice(from, body.start)}\0`
    from = body.end
  }
  masked += text.slice(from)
  const lineStarts = [0]
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1)
  const place = (offset: number) => {
    let line = lineStarts.length - 1
    while (lineStarts[line]! > offset) line--
    return `${line}:${offset - lineStarts[line]!}`
  }
  return { masked, calls: calls.map(place).join(',') }
}

/**
 * True when `after`, a module's new text, differs from `before` only inside the bodies of its
 * tools' `run` functions (given inline to `defineTool`), and every call outside them starts where
 * it did: evaluating the new text makes the same definitions, at the same places, but for the
 * functions, which nothing calls while the agent tree is compiled. A watch rebuild after such an
 * edit keeps the registry as loaded and rebuilds that tool's script alone. Text that does not parse
 * is never taken for such an edit.
 */
export function onlyRunBodiesDiffer(file: string, before: string, after: string): boolean {
  if (before === after) return true
  const old = shapeOf(file, before)
  const now = old && shapeOf(file, after)
  return old !== undefined && now !== undefined && old.masked === now.masked && old.calls === now.calls
}
