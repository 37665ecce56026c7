/**
 * Node's own import() of an ES module: a user's importHook by file URL, or tsx's API (whose CommonJS
 * build cannot load its ESM half). A module of its own because the `fed` bin runs its bundle in a
 * vm.Script, where on Node 20 import() cannot run once the code comes from the code cache:
 * scripts/bundle.mjs keeps this module out of the bundle, as a file Node loads itself.
 */
export function nativeImport(specifier: string): Promise<unknown> {
  return import(specifier);
}
