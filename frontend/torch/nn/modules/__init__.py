"""The standard layers, one family per file."""
