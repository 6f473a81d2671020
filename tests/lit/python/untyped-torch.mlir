// RUN: xdsl-opt %s -t python --verify-diagnostics | filecheck %s

// Torch IR with unknown types needs the call signature: one line says which pipeline takes it.
// CHECK-NOT: Traceback
// CHECK: tsjit-to-loops: {{.*}} is not fully known; give the argument types with -p 'tsjit-to-loops{signature="f32[?]"}'
// CHECK-NOT: Traceback
func.func @f(%x: !torch.vtensor<*,unk>) -> !torch.vtensor<*,unk> {
  %y = torch.aten.tanh %x : !torch.vtensor<*,unk> -> !torch.vtensor<*,unk>
  func.return %y : !torch.vtensor<*,unk>
}
