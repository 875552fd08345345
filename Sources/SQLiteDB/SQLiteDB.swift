// Placeholder: SQLiteDB
