/// Every exported function of the package (JS names); each golden folder is named after one of them.
const FUNCTIONS: [&str; 16] = [
    "builtinCatalog",
    "toolManifest",
    "resolveTools",
    "buildSubprocessWorkerPolicy",
    "projectRuntimePolicy",
    "runtimeDiagnostic",
    "syncCatalog",
    "validateToolUpdate",
    "toolBehaviorGuidance",
    "labels",
    "label",
    "version",
    "explainTool",
    "profileRouteDiff",
    "toMcpAnnotations",
    "checkToolCall",
];
