import ObjectGraphTestModels

/// The test model's `Tag`, not Swift Testing's: a module's own name wins over imported ones.
typealias Tag = ObjectGraphTestModels.Tag
