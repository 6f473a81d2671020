"""Emitting torch-dialect IR, shared by the script and trace frontends: the builder that
creates ops, the binding of call arguments to an op's overloads, and the resolution of a
Python object (`torch.tanh`, `np.tanh`, `Tensor.add`) to the op it stands for."""
