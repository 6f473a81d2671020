"""The torch dialect's ops, one module per family."""
