// Malformed IR: every chunk must give a parse error, a verifier diagnostic or a failing pass
// with a message (never an internal traceback, never a hang). Chunks are separated by the
// usual split-input-file line; `// error: <regex>` is searched in the message; `// stage: <name>` says which
// stage the IR is at (default torch) so only the later passes run; a line ending in
// `// <-- here` is where a parse error must point. tests/reliability/test_bad_ir.py reads it.

// error: values used but not defined: \[%y\]
func.func @undefined_value(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.tanh %y : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
  func.return %0 : !torch.vtensor<[2],f32>
}  // <-- here

// -----
// error: unregistered operation|torch.aten.frobnicate
func.func @unknown_op(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.frobnicate %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>  // <-- here
  func.return %0 : !torch.vtensor<[2],f32>
}

// -----
// error: .
func.func @missing_closing_brace(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  func.return %x : !torch.vtensor<[2],f32>

// -----
// error: .
func.func @missing_dtype(%x: !torch.vtensor<[2,3]>) {  // <-- here
  func.return
}

// -----
// error: dtype|element|q8|type
func.func @unknown_dtype(%x: !torch.vtensor<[2],q8>) {  // <-- here
  func.return
}

// -----
// error: .
func.func @bad_dim(%x: !torch.vtensor<[2,x],f32>) {  // <-- here
  func.return
}

// -----
// error: .
func.func @negative_dim(%x: !torch.vtensor<[-3],f32>) {  // <-- here
  func.return
}

// -----
// error: .
func.func @unknown_torch_type(%x: !torch.frobnicate) {  // <-- here
  func.return
}

// -----
// error: .
func.func @missing_comma_in_type(%x: !torch.vtensor<[2,3]f32>) {  // <-- here
  func.return
}

// -----
// error: .
func.func @extra_type_parameter(%x: !torch.vtensor<*,f32,f64>) {  // <-- here
  func.return
}

// -----
// error: .
func.func @empty_list_type(%x: !torch.list<>) {  // <-- here
  func.return
}

// -----
// error: .
func.func @missing_arrow(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32> !torch.vtensor<[2],f32>  // <-- here
  func.return
}

// -----
// error: .
func.func @missing_colon(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.tanh %x -> !torch.vtensor<[2],f32>  // <-- here
  func.return
}

// -----
// error: .
func.func @operand_type_count(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>  // <-- here
  func.return
}

// -----
// error: .
func.func @result_count(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
  func.return
}

// -----
// error: .
func.func @redefined_value(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>  // <-- here
  func.return
}

// -----
// error: .
func.func @int_constant_without_value() {
  %0 = torch.constant.int
  func.return  // <-- here
}

// -----
// error: .
func.func @int_constant_with_string() {
  %0 = torch.constant.int "a"  // <-- here
  func.return
}

// -----
// error: .
func.func @bool_constant_with_int() {
  %0 = torch.constant.bool 2  // <-- here
  func.return
}

// -----
// error: .
func.func @unterminated_string() {
  %0 = torch.constant.str "abc  // <-- here
  func.return
}

// -----
// error: .
func.func @garbage(%x: !torch.vtensor<[2],f32>) {
  @@@ ### $$$  // <-- here
  func.return
}

// -----
// error: .
func.func @unterminated_arguments(%x: !torch.vtensor<[2],f32>

// -----
// error: .
func.func @missing_op(%x: !torch.vtensor<[2],f32>) {
  %0 =  // <-- here
  func.return
}

// -----
// error: .
func.func @operand_without_percent(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.tanh x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>  // <-- here
  func.return
}

// -----
// error: .
func.func @list_construct_without_types(%a: !torch.int) {
  %0 = torch.prim.ListConstruct %a
  func.return  // <-- here
}

// -----
// error: .
func.func @if_without_result_types(%c: !torch.bool, %x: !torch.vtensor<[2],f32>) {
  %r = torch.prim.If %c {
    torch.prim.If.yield %x : !torch.vtensor<[2],f32>  // <-- here
  } else {
    torch.prim.If.yield %x : !torch.vtensor<[2],f32>
  }
  func.return
}

// -----
// error: .
"builtin.module"() ({
  "func.func"() <{sym_name = "generic_without_type", function_type = () -> ()}> ({
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"trailing garbage"

// -----
// error: torch.aten.add.Tensor: shapes \[3\], \[4\] cannot be broadcast together
func.func @broadcast_mismatch(%x: !torch.vtensor<[3],f32>, %y: !torch.vtensor<[4],f32>) {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %x, %y, %int1 : !torch.vtensor<[3],f32>, !torch.vtensor<[4],f32>, !torch.int -> !torch.vtensor<[3],f32>
  func.return
}

// -----
// error: torch.aten.tanh: result #0 has type
func.func @wrong_result_shape(%x: !torch.vtensor<[3],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[4],f32>
  func.return
}

// -----
// error: torch.aten.tanh: result #0 has type
func.func @wrong_result_rank(%x: !torch.vtensor<[3],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3,1],f32>
  func.return
}

// -----
// error: mm: expected 2-D tensors
func.func @mm_of_vectors(%a: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>) {
  %0 = torch.aten.mm %a, %b : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3,3],f32>
  func.return
}

// -----
// error: func.return|return|type
func.func @return_type_mismatch(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f64> {
  func.return %x : !torch.vtensor<[2],f32>
}

// -----
// error: same types as the function output types
func.func @return_count_mismatch(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  func.return
}

// -----
// error: terminator|func.return|block
func.func @missing_terminator(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
}

// -----
// error: Expected ':'
func.func @op_after_terminator(%x: !torch.vtensor<[2],f32>) {
  func.return
  %0 = torch.aten.tanh %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>  // <-- here
}

// -----
// error: torch.prim.If|bool|operand
func.func @if_condition_not_bool(%c: !torch.int, %x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %r = torch.prim.If %c -> (!torch.vtensor<[2],f32>) {
    torch.prim.If.yield %x : !torch.vtensor<[2],f32>
  } else {
    torch.prim.If.yield %x : !torch.vtensor<[2],f32>
  }
  func.return %r : !torch.vtensor<[2],f32>
}

// -----
// error: torch.prim.If|yield|result
func.func @if_yield_count(%c: !torch.bool, %x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %r = torch.prim.If %c -> (!torch.vtensor<[2],f32>) {
    torch.prim.If.yield %x, %x : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
  } else {
    torch.prim.If.yield %x : !torch.vtensor<[2],f32>
  }
  func.return %r : !torch.vtensor<[2],f32>
}

// -----
// error: torch.prim.Loop|block|argument|iter
func.func @loop_block_arguments(%n: !torch.int, %x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %true = torch.constant.bool true
  %y = torch.prim.Loop %n, %true, init(%x) {
  ^bb0(%i: !torch.int):
    torch.prim.Loop.condition %true, iter(%x : !torch.vtensor<[2],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  func.return %y : !torch.vtensor<[2],f32>
}

// -----
// error: operand 'self_' at position 0 does not verify
func.func @tanh_of_int(%x: !torch.int) {
  %0 = torch.aten.tanh %x : !torch.int -> !torch.vtensor<[3],f32>
  func.return
}

// -----
// error: torch.aten.add.Tensor|operand
func.func @add_missing_alpha(%x: !torch.vtensor<[3],f32>) {
  %0 = torch.aten.add.Tensor %x, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  func.return
}

// -----
// error: torch.aten.tanh|operand
func.func @tanh_extra_operand(%x: !torch.vtensor<[3],f32>) {
  %0 = torch.aten.tanh %x, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  func.return
}

// -----
// error: Dimension out of range
func.func @transpose_dim_out_of_range(%x: !torch.vtensor<[2,3],f32>) {
  %int0 = torch.constant.int 0
  %int5 = torch.constant.int 5
  %0 = torch.aten.transpose.int %x, %int0, %int5 : !torch.vtensor<[2,3],f32>, !torch.int, !torch.int -> !torch.vtensor<[3,2],f32>
  func.return
}

// -----
// error: torch.aten.view
func.func @view_wrong_numel(%x: !torch.vtensor<[2,3],f32>) {
  %int5 = torch.constant.int 5
  %size = torch.prim.ListConstruct %int5 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.view %x, %size : !torch.vtensor<[2,3],f32>, !torch.list<int> -> !torch.vtensor<[5],f32>
  func.return
}

// -----
// error: torch.aten.mean|floating point
func.func @mean_of_ints(%x: !torch.vtensor<[2,3],si64>) {
  %none = torch.constant.none
  %0 = torch.aten.mean %x, %none : !torch.vtensor<[2,3],si64>, !torch.none -> !torch.vtensor<[],si64>
  func.return
}

// -----
// error: func.call|callee|@missing|symbol
func.func @call_undefined(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = func.call @missing(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  func.return %0 : !torch.vtensor<[2],f32>
}

// -----
// error: func.call|type|operand
func.func @callee(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  func.return %x : !torch.vtensor<[2],f32>
}
func.func @call_wrong_types(%x: !torch.vtensor<[2],f64>) -> !torch.vtensor<[2],f32> {
  %0 = func.call @callee(%x) : (!torch.vtensor<[2],f64>) -> !torch.vtensor<[2],f32>
  func.return %0 : !torch.vtensor<[2],f32>
}

// -----
// error: bitwise|float
func.func @bitwise_of_floats(%x: !torch.vtensor<[2],f32>) {
  %0 = torch.aten.bitwise_not %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
  func.return
}

// -----
// error: cat|dim|size
func.func @cat_mismatched(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[2,4],f32>) {
  %int0 = torch.constant.int 0
  %l = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>) -> !torch.list<vtensor<[2,?],f32>>
  %0 = torch.aten.cat %l, %int0 : !torch.list<vtensor<[2,?],f32>>, !torch.int -> !torch.vtensor<[4,?],f32>
  func.return
}

// -----
// error: torch-opt|known|rank|dtype|unk
func.func @unknown_types_reach_torch_opt(%x: !torch.vtensor<*,unk>) -> !torch.vtensor<*,unk> {
  %0 = torch.aten.tanh %x : !torch.vtensor<*,unk> -> !torch.vtensor<*,unk>
  func.return %0 : !torch.vtensor<*,unk>
}

// -----
// error: `dim` must be a constant
func.func @run_time_reduction_dim(%x: !torch.vtensor<[2,3],f32>, %d: !torch.int) -> !torch.vtensor<[?],f32> {
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %d : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %x, %dims, %false, %none : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// -----
// stage: linalg
// error: number of indexing_map \(1\) to be equal to the number of input/output operands \(2\)
func.func @generic_map_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----
// stage: linalg
// error: iterator|dimensions|loops|maps
func.func @generic_iterator_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----
// stage: memref
// error: memref.load|indices|index
func.func @load_index_count(%x: memref<4x4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4x4xf32>
  func.return %v : f32
}

// -----
// stage: loops
// error: operand 'lb' at position 0 does not verify
func.func @for_float_bounds(%x: memref<4xf32>) {
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 4.0 : f32
  %st = arith.constant 1.0 : f32
  scf.for %i = %lo to %hi step %st : f32 {
  }
  func.return
}

// -----
// stage: loops
// error: python target|cannot emit|external
func.func private @external(%x: memref<4xf32>) -> ()
func.func @calls_external(%x: memref<4xf32>) {
  func.call @external(%x) : (memref<4xf32>) -> ()
  func.return
}

// -----
// stage: loops
// error: python target|cannot emit|tensor|contract|loops
func.func @tensor_at_loops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----
// stage: linalg
// error: arith.addf|type|operand
func.func @addf_mixed_types(%a: f32, %b: f64) -> f32 {
  %0 = arith.addf %a, %b : f32
  func.return %0 : f32
}
