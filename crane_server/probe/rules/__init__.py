"""Library rules, one module per library: certain crashes of calls, attributes and subscripts."""
