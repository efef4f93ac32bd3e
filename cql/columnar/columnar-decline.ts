// The columnar path's way out: thrown when it meets something only the row path answers exactly (an empty value
// under min/max, a null filter value, or the twin's own TwinCannotAnswer); the query reruns on the row path.

export class ColumnarDecline extends Error {}
