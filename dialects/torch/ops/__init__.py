"""The torch dialect's ops, one module per family: a module that declares an `OPS` tuple is a
family, and `dialects/torch/registry.py` finds every one (no list to keep). The other modules
are what families share: `along_dim` (ops computed by a kernel along a dim), `op_sequence`
(building a decomposition), `shapes` and `spatial` (shape rules)."""
