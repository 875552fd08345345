// Placeholder: VacationCLI
