// `import HearthSDK` is all a client needs: the typed device types and traits (HearthTypes) and the values,
// ids and connectivity they are made of (HearthModel) come with it, as they come with the Home APIs.
@_exported public import HearthModel
@_exported public import HearthTypes
