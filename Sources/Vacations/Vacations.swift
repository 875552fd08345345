// Placeholder: Vacations
