import { harness as describe } from '../../compile/harnesses/index.js'
import type { HookEvent } from '../../define/hooks.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { isRecord, type JsonFile } from '../source-text.js'
import type { ImportedHook, NotCarried } from '../types.js'

/** The command unplugin-oac registers for a hook definition (src/emit/hooks.ts): its script, then `--harness`. */
const COMPILED_HOOK = /scripts\/hooks\/([A-Za-z0-9_.-]+)\.mjs\b[\s\S]*\s--harness\s+[a-z]+\s*$/

/** A hook's name from its harness and event: `claude-pre-tool-use`, numbered from the second of an event on. */
function hookName(from: Harness, nativeEvent: string, index: number): string {
  const event = nativeEvent.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()
  return `${from}-${event}${index === 0 ? '' : `-${index + 1}`}`
}

/**
 * The command hooks of a settings file of Claude Code's shape (`hooks.<Event>[].hooks[]`, which
 * Codex's `.codex/hooks.json` has too): each `type: "command"` on an event the harness's description
 * maps to a portable one. Other hook types and events are listed as not carried.
 */
export function readCommandHooks(json: JsonFile, file: string, from: Harness): { hooks: ImportedHook[]; notCarried: NotCarried[] } {
  const hooks: ImportedHook[] = []
  const notCarried: NotCarried[] = []
  const root = json.value
  if (!isRecord(root) || !isRecord(root.hooks)) return { hooks, notCarried }
  const events = describe(from).hooks.events
  const portable = new Map<string, HookEvent>(Object.entries(events).map(([event, native]) => [native as string, event as HookEvent]))
  for (const [nativeEvent, groups] of Object.entries(root.hooks)) {
    const on = portable.get(nativeEvent)
    if (on === undefined) {
      notCarried.push({ at: { file, line: json.lineOf(['hooks', nativeEvent]) }, what: `the ${nativeEvent} hooks`, why: `${nativeEvent} is no event a hook definition has (they are ${[...portable.keys()].join(', ')})` })
      continue
    }
    if (!Array.isArray(groups)) continue
    let index = hooks.filter((hook) => hook.nativeEvent === nativeEvent).length
    groups.forEach((group, g) => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return
      const matcher = typeof group.matcher === 'string' && group.matcher !== '' && group.matcher !== '*' ? group.matcher : undefined
      group.hooks.forEach((hook: JsonValue, h) => {
        const line = json.lineOf(['hooks', nativeEvent, g, 'hooks', h])
        if (!isRecord(hook) || hook.type !== 'command' || typeof hook.command !== 'string') {
          const type = isRecord(hook) && typeof hook.type === 'string' ? hook.type : 'unknown'
          notCarried.push({ at: { file, line }, what: `a ${nativeEvent} hook of type "${type}"`, why: 'a hook definition runs code; only a `command` hook becomes one (its run starts the command)' })
          return
        }
        const compiled = COMPILED_HOOK.exec(hook.command)
        if (compiled) {
          notCarried.push({ at: { file, line }, what: `the ${nativeEvent} hook "${compiled[1]}"`, why: `unplugin-oac compiled it from the hook definition "${compiled[1]}"; import the registry that holds it rather than its output` })
          return
        }
        hooks.push({
          kind: 'hook',
          name: hookName(from, nativeEvent, index++),
          on,
          nativeEvent,
          command: hook.command,
          ...(matcher !== undefined && { matcher }),
          ...(typeof hook.timeout === 'number' && { timeoutMs: hook.timeout * 1000 }),
          from,
          at: { file, line },
        })
      })
    })
  }
  return { hooks, notCarried }
}
