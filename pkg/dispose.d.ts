// The glue's classes declare `[Symbol.dispose]()` (explicit resource management). A consumer whose
// TypeScript library predates `esnext.disposable` (`--target es2022`) learns the symbol here, as
// @types/node declares it; where the library has it, the two declarations are the same.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}
export {};
