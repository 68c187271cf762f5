// Symbol.dispose, for `using f = ...` on the package's objects in every environment.

// Symbol.dispose in the declarations, for projects whose `lib` predates it (ES2022 without
// esnext.disposable, no @types/node): the same declaration as TypeScript's own lib and @types/node.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

export const disposeSymbol: typeof Symbol.dispose =
  (Symbol as { dispose?: typeof Symbol.dispose }).dispose ?? (Symbol.for('Symbol.dispose') as typeof Symbol.dispose);
