// Placeholder: ObjectGraph
