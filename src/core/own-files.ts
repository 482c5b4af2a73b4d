/**
 * A file of gwrun's own package (its `sql/`, `web/`, `bin/`, `package.json`), by its path from
 * the package's folder. Every module of `dist/` lies two folders below it (`dist/store/…`, and
 * the command line's bundle in `dist/bin/`), as every module of `src/` does, so the package's
 * folder is found from here the same way wherever this code was bundled.
 */
export function ownFileUrl(pathInPackage: string): URL {
  return new URL(`../../${pathInPackage}`, import.meta.url);
}
