// The floor of an ES module's cold start: an empty module, imported as the package's entry is.
export {};
