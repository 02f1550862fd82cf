import type { Harness } from '../define/types.js'
import { harness } from './harnesses/index.js'
import type { InstructionPlace, ScopedRules } from './harnesses/types.js'
import type { TargetKind } from './target.js'

/*
 * Where a harness reads rules in each kind of target, from its description's `instructions`: in a project
 * the always-on rules reach it through the root AGENTS.md (src/emit/rules.ts); in a home and in a plugin
 * folder each harness has its own file (`home`, `plugin`).
 */

/** The file and the scoped-rule folder harness `id` reads outside a project; undefined where a plugin folder of its format carries none. */
export function instructionPlace(id: Harness, kind: Exclude<TargetKind, 'project'>): InstructionPlace | undefined {
  const { instructions } = harness(id)
  return kind === 'home' ? instructions.home : instructions.plugin
}

/** Where harness `id` loads a rule for the files its globs match, in `kind` of target; undefined where it cannot there. */
export function scopedRulesIn(id: Harness, kind: TargetKind): ScopedRules | undefined {
  return kind === 'project' ? harness(id).instructions.scoped : instructionPlace(id, kind)?.scoped
}

/** True when harness `id` reads rules at all in `kind` of target. */
export function readsRulesIn(id: Harness, kind: TargetKind): boolean {
  return kind === 'project' || instructionPlace(id, kind) !== undefined
}
