// `import Spool` is all a feature needs, as `import ComposableArchitecture` is in TCA: the
// runtime (SpoolCore), and CasePaths with its macros, because `@Reducer` expands to
// `@CasePathable` and features use case key paths (`\.child`) with `Scope`, `ifCaseLet` and
// `TestStore.receive`.
@_exported import CasePaths
@_exported import SpoolCore
