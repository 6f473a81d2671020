// RUN: xdsl-opt %s -p linalg-bufferize --verify-diagnostics | filecheck %s --check-prefix=BUFFERIZE
// RUN: xdsl-opt %s -p convert-linalg-to-parallel-loops --verify-diagnostics | filecheck %s --check-prefix=LOOPS
// RUN: xdsl-opt %s -p 'tsjit-to-linalg,tsjit-to-torch-opt' --verify-diagnostics | filecheck %s --check-prefix=BACK

// A pass given IR of an earlier stage says, in one line, the stage it needs and the pipeline
// that gets there (without --verify-diagnostics: `xdsl-opt: error: ...`, no traceback;
// tests/unit/test_pipeline_stages.py).
// BUFFERIZE-NOT: Traceback
// BUFFERIZE: linalg-bufferize: needs IR of stage 'linalg' (made by convert-torch-to-linalg), but this input is at stage 'torch-opt'; get there with: xdsl-opt FILE -p 'tsjit-to-linalg'
// LOOPS: convert-linalg-to-parallel-loops: needs IR of stage 'memref' (made by linalg-bufferize), but this input is at stage 'torch-opt'; get there with: xdsl-opt FILE -p 'tsjit-to-memref'
// BACK: tsjit-to-torch-opt: this input is already at stage 'linalg'
func.func @f(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %y = torch.aten.tanh %x : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  func.return %y : !torch.vtensor<[4],f32>
}
