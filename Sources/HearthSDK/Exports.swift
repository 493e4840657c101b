// `import HearthSDK` is all a client needs: the typed device types and traits (HearthTypes) and the values,
// ids and connectivity they are made of (HearthModel) come with it, as they come with the Home APIs.
@_exported public import HearthModel
@_exported public import HearthTypes
// Combine too (Apple's on Apple platforms, OpenCombine elsewhere, through OpenCombineShim): code written for
// the guides with `import Combine` needs only that import line changed, or dropped.
@_exported public import OpenCombineShim
