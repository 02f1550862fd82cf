import { visitorKeys } from 'oxc-parser'

/** A node of an oxc-parser AST: its type and its span in the source (string offsets). */
export interface AstNode {
  type: string
  start: number
  end: number
}

type Visit = (node: AstNode, parent: AstNode | undefined, key: string) => boolean | void

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

/** Visits `node` and its descendants in source order; `visit` returning false skips a node's children. */
export function walk(node: AstNode, visit: Visit, parent?: AstNode, key = ''): void {
  if (visit(node, parent, key) === false) return
  for (const childKey of visitorKeys[node.type] ?? []) {
    const child = (node as unknown as Record<string, unknown>)[childKey]
    if (Array.isArray(child)) for (const item of child) isNode(item) && walk(item, visit, node, childKey)
    else if (isNode(child)) walk(child, visit, node, childKey)
  }
}
