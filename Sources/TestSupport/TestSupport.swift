// Placeholder: TestSupport
