import { basename } from 'node:path'
import MagicString from 'magic-string'
import { parseSync } from 'oxc-parser'
import { type AstNode, walk } from '../ast.js'
import type { PlannedSource } from '../compile/plan.js'

/**
 * A module that defines tools (or hooks: the same holds for them), read with a real parser (oxc), so
 * that a tool's script can leave out the other tools defined in the same module. esbuild cannot drop an unused `defineTool({...})` by
 * itself: the call and the schema calls in its arguments count as side effects. So the module is
 * handed to esbuild with those calls marked pure (`@__PURE__` comments), and the calls that build
 * what only those tools use (a schema in a constant of its own); esbuild's tree shaking then drops
 * whatever the script's own tool does not reach, with the imports only that code used. A tool the
 * script's tool calls is reached, and stays.
 */

/** The package whose `defineTool` and `defineHook` the calls are made with. */
const OWN_PACKAGE = 'unplugin-oac'

/** The definitions that become code files of their own: a tool's script, a hook's. */
const DEFINE_FUNCTIONS: readonly string[] = ['defineTool', 'defineHook']

const PURE = '/* @__PURE__ */ '

/** Code that does not run when the module is evaluated (function bodies), or that may run in ways a
 * call's mark would not describe (class bodies): never marked, never searched for definitions. */
const DEFERRED = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassDeclaration', 'ClassExpression'])

const SPECIFIERS = new Set(['ImportSpecifier', 'ImportDefaultSpecifier', 'ImportNamespaceSpecifier', 'ExportSpecifier'])

/** The expression under parentheses and TypeScript's type assertions (`x as T`, `x satisfies T`, `x!`). */
function unwrapped(node: AstNode): AstNode {
  let inner = node
  while (['ParenthesizedExpression', 'TSAsExpression', 'TSSatisfiesExpression', 'TSNonNullExpression', 'TSTypeAssertion'].includes(inner.type)) {
    inner = (inner as unknown as { expression: AstNode }).expression
  }
  return inner
}

/** A binding declared at the top of the module: a `const`/`let`/`var` with a plain name, a function or a class. */
interface TopBinding {
  name: string
  /** Where its name is declared (not a use of it). */
  nameStart: number
  /** The declarator or declaration, which references inside it (recursion) do not keep it. */
  start: number
  end: number
  /** The value a variable is initialised with; its calls are marked when only other tools use the binding. */
  init: AstNode | undefined
}

/** The tool definition an entry imports: the name the module exports it under. */
export interface ToolExport {
  exportName: string
}

export class ToolModule {
  private constructor(
    private readonly file: string,
    /** The text the module was parsed from. */
    readonly text: string,
    /** The module's `defineTool(...)` and `defineHook(...)` calls evaluated at its top level, in source order. */
    private readonly definitions: readonly AstNode[],
    /** Of those, the `defineHook(...)` calls. */
    private readonly hookDefinitions: ReadonlySet<AstNode>,
    /** The export name of each definition exported as a binding of its own. */
    private readonly exportNames: ReadonlyMap<AstNode, string>,
    private readonly bindings: readonly TopBinding[],
    /** Start offsets of every identifier that may refer to a top-level binding, by name. */
    private readonly references: ReadonlyMap<string, readonly number[]>,
    /** Specifiers this module imports only for bindings, never for side effects alone (`import 'x'`). */
    readonly importsForBindingsOnly: ReadonlySet<string>,
  ) {}

  /**
   * Parses `text`, the module at `file`. Undefined when there is nothing to do: it does not parse
   * (esbuild reports that), or it makes no `defineTool` or `defineHook` call with unplugin-oac's own function.
   */
  static read(file: string, text: string): ToolModule | undefined {
    const parsed = parseSync(file, text)
    if (parsed.errors.length > 0) return undefined
    const program = parsed.program as unknown as AstNode & { body: AstNode[] }

    // The names `defineTool` and `defineHook` go by here (by local name, the function's): imported by name (perhaps renamed), or as a namespace's member.
    const direct = new Map<string, string>()
    const namespaces = new Set<string>()
    const bareImports = new Set<string>()
    const boundImports = new Set<string>()
    for (const entry of parsed.module.staticImports) {
      const specifier = entry.moduleRequest.value
      const values = entry.entries.filter((e) => !e.isType)
      if (entry.entries.length === 0) bareImports.add(specifier)
      else if (values.length > 0) boundImports.add(specifier)
      if (specifier !== OWN_PACKAGE) continue
      for (const e of values) {
        if (e.importName.kind === 'Name' && DEFINE_FUNCTIONS.includes(e.importName.name ?? '')) direct.set(e.localName.value, e.importName.name!)
        if (e.importName.kind === 'NamespaceObject') namespaces.add(e.localName.value)
      }
    }
    if (direct.size === 0 && namespaces.size === 0) return undefined
    /** The define function a call makes, if it is one of ours. */
    const definitionOf = (node: AstNode): string | undefined => {
      if (node.type !== 'CallExpression') return undefined
      const callee = unwrapped((node as unknown as { callee: AstNode }).callee) as AstNode & Record<string, unknown>
      if (callee.type === 'Identifier') return direct.get(callee.name as string)
      if (callee.type !== 'MemberExpression' || callee.computed) return undefined
      const object = callee.object as AstNode & { name?: string }
      const property = callee.property as AstNode & { name?: string }
      return object.type === 'Identifier' && namespaces.has(object.name!) && DEFINE_FUNCTIONS.includes(property.name ?? '') ? property.name : undefined
    }

    const definitions: AstNode[] = []
    const hookDefinitions = new Set<AstNode>()
    walk(program, (node) => {
      if (DEFERRED.has(node.type)) return false
      const defined = definitionOf(node)
      if (defined) definitions.push(node)
      if (defined === 'defineHook') hookDefinitions.add(node)
    })
    if (definitions.length === 0) return undefined

    const bindings: TopBinding[] = []
    const localOf = new Map<AstNode, string>()
    const exportNames = new Map<AstNode, string>()
    for (const statement of program.body) {
      const node = statement as AstNode & { declaration?: AstNode | null }
      const declaration = node.type === 'ExportNamedDeclaration' || node.type === 'ExportDefaultDeclaration' ? node.declaration ?? undefined : node
      if (!declaration) continue
      if (node.type === 'ExportDefaultDeclaration') {
        const value = unwrapped(declaration)
        if (definitions.includes(value)) exportNames.set(value, 'default')
      }
      if (declaration.type === 'VariableDeclaration') {
        for (const declarator of (declaration as unknown as { declarations: Array<AstNode & { id: AstNode & { name?: string }; init: AstNode | null }> }).declarations) {
          if (declarator.id.type !== 'Identifier') continue
          const init = declarator.init ?? undefined
          bindings.push({ name: declarator.id.name!, nameStart: declarator.id.start, start: declarator.start, end: declarator.end, init })
          if (init && definitions.includes(unwrapped(init))) localOf.set(unwrapped(init), declarator.id.name!)
        }
      } else if (declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') {
        const id = (declaration as unknown as { id: (AstNode & { name: string }) | null }).id
        if (id) bindings.push({ name: id.name, nameStart: id.start, start: declaration.start, end: declaration.end, init: undefined })
      }
    }
    for (const entry of parsed.module.staticExports) {
      for (const e of entry.entries) {
        if (e.moduleRequest !== null || e.isType || e.localName.name === null) continue
        const exported = e.exportName.kind === 'Default' ? 'default' : e.exportName.name
        if (exported === null) continue
        for (const [definition, local] of localOf) if (local === e.localName.name && !exportNames.has(definition)) exportNames.set(definition, exported)
      }
    }

    const topNames = new Set(bindings.map((binding) => binding.name))
    const references = new Map<string, number[]>()
    walk(program, (node, parent, key) => {
      if (node.type !== 'Identifier' || !topNames.has((node as unknown as { name: string }).name)) return
      // Names that are not references: property keys and member names (unless computed), the names in
      // import and export lists. Anything else counts, a shadowing declaration too (which only keeps more).
      const computed = (parent as unknown as { computed?: boolean } | undefined)?.computed === true
      if (key === 'key' && !computed) return
      if (key === 'property' && parent?.type === 'MemberExpression' && !computed) return
      if (parent && SPECIFIERS.has(parent.type)) return
      const name = (node as unknown as { name: string }).name
      references.set(name, [...(references.get(name) ?? []), node.start])
    })

    const importsForBindingsOnly = new Set([...boundImports].filter((specifier) => !bareImports.has(specifier)))
    return new ToolModule(file, text, definitions, hookDefinitions, exportNames, bindings, references, importsForBindingsOnly)
  }

  /** The definition the plan located at `source` (its line and column fall inside the call), if any. */
  definitionAt(source: Pick<PlannedSource, 'line' | 'column'>): { call: AstNode; export: ToolExport | undefined } | undefined {
    const offset = lineStart(this.text, source.line) + source.column - 1
    const containing = this.definitions.filter((call) => call.start <= offset && offset < call.end)
    const call = containing.sort((a, b) => a.end - a.start - (b.end - b.start))[0]
    if (!call) return undefined
    const exportName = this.exportNames.get(call)
    return { call, export: exportName === undefined ? undefined : { exportName } }
  }

  /**
   * The module's text for a script whose own tool is defined by `own` (none: the module only lends
   * code to the script): every other definition marked pure, with every call in its arguments, and
   * so the calls that initialise a top-level binding only those definitions use; a hook's own `tools`
   * left out (its spec carries them), so that its script need not load the tools it watches. A source map back
   * to the module is inlined, so stacks (OAC_DEBUG) still name the module's own lines and columns.
   * Undefined when there is nothing to mark.
   */
  withoutOtherTools(own: AstNode | undefined): string | undefined {
    const others = this.definitions.filter((call) => !own || call.end <= own.start || call.start >= own.end)
    // A hook's script takes the tools it watches from its spec: without the `tools` its definition lists,
    // it need not load their modules (nor what they import, zod with them).
    const watched = own && this.hookDefinitions.has(own) ? toolsValue(own) : undefined
    if (others.length === 0 && !watched) return undefined

    // The bindings only the other definitions use, grown to a fixed point: a binding used only by one
    // found so belongs to them too. One used nowhere is left alone: its initialiser may be there for
    // its effect; and so is the binding of the script's own tool, whoever else uses it.
    const covered: Array<[number, number]> = others.map((call) => [call.start, call.end])
    const inside = (offset: number) => covered.some(([start, end]) => start <= offset && offset < end)
    const onlyTheirs: TopBinding[] = []
    for (let grew = true; grew; ) {
      grew = false
      for (const binding of this.bindings) {
        if (onlyTheirs.includes(binding) || (own && binding.start <= own.start && own.end <= binding.end)) continue
        const uses = (this.references.get(binding.name) ?? []).filter((offset) => offset !== binding.nameStart && (offset < binding.start || offset >= binding.end))
        if (uses.length === 0 || !uses.every(inside)) continue
        onlyTheirs.push(binding)
        covered.push([binding.start, binding.end])
        grew = true
      }
    }

    const marks = new Set<number>()
    const markCalls = (node: AstNode) =>
      walk(node, (inner) => {
        if (DEFERRED.has(inner.type)) return false
        if (inner.type === 'CallExpression' || inner.type === 'NewExpression') marks.add(inner.start)
      })
    for (const call of others) markCalls(call)
    for (const binding of onlyTheirs) if (binding.init) markCalls(binding.init)
    if (marks.size === 0 && !watched) return undefined

    const edited = new MagicString(this.text)
    for (const offset of marks) edited.appendLeft(offset, PURE)
    if (watched) edited.overwrite(watched.start, watched.end, 'undefined')
    const map = edited.generateMap({ hires: true, source: basename(this.file), includeContent: false })
    return `${edited.toString()}\n//# sourceMappingURL=${map.toUrl()}\n`
  }
}

/** The value of the `tools` property of a definition's options object, where it is written as one. */
function toolsValue(call: AstNode): AstNode | undefined {
  const options = unwrapped(((call as unknown as { arguments: AstNode[] }).arguments ?? [])[0] ?? call)
  if (options.type !== 'ObjectExpression') return undefined
  for (const property of (options as unknown as { properties: Array<AstNode & { key?: AstNode & { name?: string }; computed?: boolean; value?: AstNode; shorthand?: boolean }> }).properties) {
    if (property.type !== 'Property' || property.computed || property.shorthand || property.key?.type !== 'Identifier' || property.key.name !== 'tools') continue
    return property.value
  }
  return undefined
}

/** The offset where 1-based `line` starts, counting line breaks as JavaScript does (`\n`, `\r\n`, `\r`, U+2028, U+2029). */
function lineStart(text: string, line: number): number {
  let offset = 0
  for (let current = 1; current < line; current++) {
    let next = offset
    while (next < text.length && !'\n\r\u2028\u2029'.includes(text[next]!)) next++
    if (next >= text.length) return text.length
    offset = text[next] === '\r' && text[next + 1] === '\n' ? next + 2 : next + 1
  }
  return offset
}
