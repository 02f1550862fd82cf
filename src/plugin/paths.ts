import { isAbsolute, relative, sep } from 'node:path'

/** True when `path` is `folder` itself or lies inside it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/** A POSIX path of `path` relative to `from` (`.` for the folder itself). */
export function posixRelative(from: string, path: string): string {
  return relative(from, path).split(sep).join('/') || '.'
}
