import type { HomeTarget } from '../compile/target.js'
import type { Harness } from '../define/types.js'
import type { OutputFile } from './types.js'

/*
 * A user-scope install (`--scope user`): the emitters write a project's files, and each moves to where
 * the harnesses that read it read the same file in a home (`HomeTarget.places`, from their
 * descriptions' `userScope`). What a file says about a script's place does not depend on it: in a home
 * every file names its scripts from the home folder (the target's `scriptFrom`, `commandPath`).
 */

/** Every file of a project's tree at its places in the home, for the plan's `harnesses`. */
export function userScopeFiles(harnesses: readonly Harness[], home: HomeTarget, files: readonly OutputFile[]): OutputFile[] {
  const placed = new Map<string, OutputFile>()
  for (const file of files) {
    const homes = home.places(file.path, harnesses)
    if (homes === undefined) throw new Error(`No harness of ${harnesses.join(', ')} says where ${file.path} goes in a home: a userScope entry is missing from its description.`)
    // Two harnesses that read one project file from the same home file get it once.
    for (const path of homes) if (!placed.has(path)) placed.set(path, { ...file, path })
  }
  return [...placed.values()]
}
