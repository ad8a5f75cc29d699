// `@Reducer` expands to `@CasePathable`, and features use case key paths (`\.child`) with
// `Scope`, `ifCaseLet` and `TestStore.receive`: with this, `import Spool` is all a feature
// needs, as `import ComposableArchitecture` is in TCA.
@_exported import CasePaths
