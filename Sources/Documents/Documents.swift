// Placeholder: Documents
