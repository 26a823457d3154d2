"""The abstract interpreter: walks a cell over shadows of the live values, calling only what the gate allows."""
