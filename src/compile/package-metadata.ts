import type { PluginAuthor, PluginMetadata } from './plan.js'

/** The metadata as package.json (or a driver's options) writes it, before it is normalised. */
export interface PackageMetadataInput {
  /** `"Name <email> (url)"` or `{ name, email?, url? }`. */
  author?: string | PluginAuthor
  /** An SPDX licence id, e.g. MIT. */
  license?: string
  /** A URL, `github:owner/repo`, `owner/repo`, or `{ type, url }`. */
  repository?: string | { type?: string; url: string }
  homepage?: string
  keywords?: string[]
}

/**
 * The metadata a plugin's manifests carry from the project's package.json, normalised as npm does
 * (normalize-package-data): `author` "Name <email> (url)" becomes an object, `repository` a URL
 * (the `github:owner/repo` and `owner/repo` shorthands and `{ type, url }` included), keywords the
 * non-empty strings. What is absent or not of its type is left out.
 */
export function packageMetadata(project: { [key in keyof PackageMetadataInput]?: unknown }): PluginMetadata {
  const author = personOf(project.author)
  const repository = repositoryUrl(project.repository)
  const license = text(project.license)
  const homepage = text(project.homepage)
  const keywords = Array.isArray(project.keywords) ? project.keywords.filter((word): word is string => typeof word === 'string' && word.trim() !== '') : []
  return {
    ...(author && { author }),
    ...(license && { license }),
    ...(repository && { repository }),
    ...(homepage && { homepage }),
    ...(keywords.length > 0 && { keywords }),
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

/** npm's person: "Name <email> (url)", or { name, email, url }. */
function personOf(value: unknown): PluginAuthor | undefined {
  if (typeof value === 'string') {
    const match = /^([^<(]*?)\s*(?:<([^>]*)>)?\s*(?:\(([^)]*)\))?\s*$/.exec(value.trim())
    const name = text(match?.[1])
    if (!match || !name) return undefined
    const email = text(match[2])
    const url = text(match[3])
    return { name, ...(email && { email }), ...(url && { url }) }
  }
  if (typeof value === 'object' && value !== null) {
    const person = value as Record<string, unknown>
    const name = text(person.name)
    if (!name) return undefined
    const email = text(person.email)
    const url = text(person.url) ?? text(person.web)
    return { name, ...(email && { email }), ...(url && { url }) }
  }
  return undefined
}

const HOSTS: Record<string, string> = { github: 'https://github.com', gitlab: 'https://gitlab.com', bitbucket: 'https://bitbucket.org' }

/** The repository as a browsable URL: shorthands expanded, `git+` and `.git` taken off as npm's hosted-git-info does. */
function repositoryUrl(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? text(value) : typeof value === 'object' && value !== null ? text((value as Record<string, unknown>).url) : undefined
  if (!raw) return undefined
  const shorthand = /^(?:(github|gitlab|bitbucket):)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(raw)
  if (shorthand) return `${HOSTS[shorthand[1] ?? 'github']}/${shorthand[2]}/${shorthand[3]}`
  const scp = /^git@([^:]+):(.+?)(?:\.git)?$/.exec(raw)
  if (scp) return `https://${scp[1]}/${scp[2]}`
  return raw.replace(/^git\+/, '').replace(/^git:\/\//, 'https://').replace(/\.git$/, '')
}
