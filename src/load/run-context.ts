import { readFile } from 'node:fs/promises'
import { parseSync } from 'oxc-parser'
import { type AstNode, walk } from '../ast.js'
import type { SourceLocation } from '../define/types.js'

/*
 * Which members of its ctx a definition's `run` uses, read from its code: a hook's decisions
 * (hook-decisions.ts), the parts of a rich result a tool returns (tool-results.ts). Where the code does
 * not tell (ctx passed on, spread, a computed member, reached through rest parameters or `arguments`),
 * the reading is left out and the definition may use any.
 */

const FUNCTIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression'])

type Node = AstNode & Record<string, unknown>

/**
 * The function a module-level `const` or function declaration names `name` (exported or not), where there
 * is one: a `run` given by name (`run: forecast`, `{ run }`) is read where the module defines it.
 */
function moduleFunction(program: Node, name: string): Node | undefined {
  for (const statement of program.body as Node[]) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement
    if (declaration?.type === 'FunctionDeclaration' && (declaration.id as Node | null)?.name === name) return declaration
    if (declaration?.type !== 'VariableDeclaration' || declaration.kind !== 'const') continue
    for (const declarator of declaration.declarations as Node[]) {
      const init = declarator.init as Node | null
      if ((declarator.id as Node).name === name && init && FUNCTIONS.has(init.type)) return init
    }
  }
  return undefined
}

/** The `run` function of the object literal a call at `offset` passes, innermost call first. */
function runFunction(program: AstNode, offset: number): Node | undefined {
  const calls: Node[] = []
  // A name inside a function may be one of its own bindings: only a call at module level is followed to the module's.
  let inFunction = false
  walk(program, (node) => {
    if (node.start > offset || node.end <= offset) return false
    if (node.type === 'CallExpression') calls.push(node as Node)
    if (FUNCTIONS.has(node.type) || node.type === 'FunctionDeclaration') inFunction = true
  })
  for (const call of calls.reverse()) {
    const options = (call.arguments as Node[] | undefined)?.[0]
    if (options?.type !== 'ObjectExpression') continue
    for (const property of options.properties as Node[]) {
      const key = property.key as Node | undefined
      if (property.type !== 'Property' || property.computed || key?.type !== 'Identifier' || key.name !== 'run') continue
      const value = property.value as Node
      if (value.type === 'Identifier' && !inFunction) return moduleFunction(program as Node, value.name as string)
      return FUNCTIONS.has(value.type) ? value : undefined
    }
  }
  return undefined
}

/** Whether a non-arrow function's body reads `arguments`, through which it may reach any parameter. */
function readsArguments(run: Node): boolean {
  if (run.type === 'ArrowFunctionExpression') return false
  let reads = false
  walk(run.body as AstNode, (node) => {
    if (node.type === 'Identifier' && (node as Node).name === 'arguments') reads = true
  })
  return reads
}

/** Which of `members` a `run` function uses of its second parameter (its ctx), or undefined when its code does not tell. */
function contextMembers(run: Node, members: ReadonlySet<string>): string[] | undefined {
  const params = run.params as Node[]
  if (params.some((param) => param.type === 'RestElement') || readsArguments(run)) return undefined
  const ctx = params[1]
  if (!ctx) return []
  if (ctx.type === 'ObjectPattern') {
    const names: string[] = []
    for (const property of ctx.properties as Node[]) {
      const key = property.key as Node | undefined
      if (property.type !== 'Property' || property.computed || key?.type !== 'Identifier') return undefined
      if (members.has(key.name as string)) names.push(key.name as string)
    }
    return names
  }
  if (ctx.type !== 'Identifier') return undefined
  const name = ctx.name as string
  const found = new Set<string>()
  let escapes = false
  walk(run.body as AstNode, (node, parent, key) => {
    if (node.type !== 'Identifier' || (node as Node).name !== name) return
    // A member name or an object key of that spelling is not the parameter.
    if ((key === 'property' && parent?.type === 'MemberExpression' && !(parent as Node).computed) || (key === 'key' && !(parent as Node).computed)) return
    const member = parent as Node | undefined
    if (member?.type === 'MemberExpression' && key === 'object' && !member.computed) {
      const property = (member.property as Node).name as string
      if (members.has(property)) found.add(property)
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

/** A module's text and its parsed program. */
interface ParsedModule {
  text: string
  program: AstNode
}

/**
 * The modules definitions come from, each read and parsed once however many hooks and tools it
 * defines: one instance per load, so an edited module is read afresh on the next.
 */
export class DefinitionModules {
  private readonly parsed = new Map<string, Promise<ParsedModule | undefined>>()

  /** The module at `file`, or undefined where it cannot be read or parsed. */
  private module(file: string): Promise<ParsedModule | undefined> {
    let module = this.parsed.get(file)
    if (!module) {
      module = readFile(file, 'utf8').then(
        (text) => {
          const parsed = parseSync(file, text)
          return parsed.errors.length > 0 ? undefined : { text, program: parsed.program as unknown as AstNode }
        },
        () => undefined,
      )
      this.parsed.set(file, module)
    }
    return module
  }

  /** Which of `members` each definition's `run` uses of its ctx, where its module's code tells (a definition it does not tell of is left out). */
  async contextMembers<D extends { source: SourceLocation }>(definitions: readonly D[], members: ReadonlySet<string>): Promise<Map<D, string[]>> {
    const used = new Map<D, string[]>()
    for (const definition of definitions) {
      const { file, line, column } = definition.source
      const module = await this.module(file)
      const run = module && runFunction(module.program, offsetOf(module.text, line, column))
      const found = run ? contextMembers(run, members) : undefined
      if (found) used.set(definition, found)
    }
    return used
  }
}
