import type { JsonValue } from '../../define/types.js'
import type { PluginInfo } from '../../compile/plan.js'

/**
 * The package's metadata in Claude Code's plugin manifest shape, which the Copilot CLI's and Codex's share:
 * `author` an object, `repository` a URL, `license`, `homepage`, `keywords`; each only where known.
 */
export function manifestMetadata(info: PluginInfo): { [key: string]: JsonValue } {
  const { author, license, repository, homepage, keywords } = info
  return {
    ...(author && { author: { ...author } }),
    ...(homepage && { homepage }),
    ...(repository && { repository }),
    ...(license && { license }),
    ...(keywords && { keywords: [...keywords] }),
  }
}

/** The same in package.json's shape, as npm writes it: `repository` as `{ type, url }`. */
export function packageMetadataFields(info: PluginInfo): { [key: string]: JsonValue } {
  const { repository, ...rest } = manifestMetadata(info)
  return { ...rest, ...(typeof repository === 'string' && { repository: { type: 'git', url: `git+${repository}.git` } }) }
}
