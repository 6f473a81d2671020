// RUN: xdsl-opt %s -p 'tsjit-to-torch-opt{signature="f32[?,3]"}' | filecheck %s --check-prefix=OPT
// RUN: xdsl-opt %s -p 'tsjit-to-linalg{signature="f32[?,3]"}' | filecheck %s --check-prefix=LINALG
// RUN: xdsl-opt %s -p 'tsjit-to-linalg{signature="f32[?,3]"}' | xdsl-opt -p tsjit-to-memref | filecheck %s --check-prefix=MEMREF
// RUN: xdsl-opt %s -p 'tsjit-to-loops{signature="f32[?,3]"}' | filecheck %s --check-prefix=LOOPS

// The stages as named pipelines: each runs the default passes from the stage of its input.
// OPT:    torch.aten.relu %{{.*}} : !torch.vtensor<[?,3],f32> -> !torch.vtensor<[?,3],f32>
// LINALG: linalg.generic
// LINALG-NOT: torch.
// MEMREF: memref.alloc
// MEMREF-NOT: tensor<
// LOOPS:  scf.parallel
// LOOPS-NOT: linalg.
func.func @f(%x: !torch.vtensor<*,unk>) -> !torch.vtensor<*,unk> {
  %y = torch.aten.relu %x : !torch.vtensor<*,unk> -> !torch.vtensor<*,unk>
  func.return %y : !torch.vtensor<*,unk>
}
