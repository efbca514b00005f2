/** The service's date-time format: ISO 8601, Laravel style, e.g. `2026-11-21T10:00:00.000000Z`. */
export const LARAVEL_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;
