// `import Spool` is all a feature needs, as `import ComposableArchitecture` is in TCA: the
// runtime (SpoolCore), and CasePaths with its macros, because `@Reducer` expands to
// `@CasePathable` and features use case key paths (`\.child`) with `Scope`, `ifCaseLet` and
// `TestStore.receive`. IdentifiedCollections too, because `forEach` and `IdentifiedAction` take
// and name `IdentifiedArray`: a feature with a collection of children declares its state with
// `IdentifiedArrayOf` and must not need a second import to do so.
@_exported import CasePaths
@_exported import IdentifiedCollections
@_exported import SpoolCore
