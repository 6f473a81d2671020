"""tsjit benchmarks: the workloads of issue 6 vs numpy and PyTorch (`python -m benchmarks`)."""
