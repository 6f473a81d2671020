// RUN: xdsl-opt %s | xdsl-opt | filecheck %s
// `!torch.str` and `torch.constant.str` print and parse back unchanged (quotes print as \22, as in MLIR).

// CHECK-LABEL: func.func @strings
// CHECK-NEXT: %{{.*}} = torch.constant.str "tanh"
// CHECK-NEXT: %{{.*}} = torch.constant.str "a \22quoted\22 word"
// CHECK-NEXT: torch.prim.ListConstruct %{{.*}} : (!torch.str) -> !torch.list<str>
func.func @strings() -> !torch.str {
  %s = torch.constant.str "tanh"
  %q = torch.constant.str "a \"quoted\" word"
  %l = torch.prim.ListConstruct %s : (!torch.str) -> !torch.list<str>
  func.return %s : !torch.str
}
