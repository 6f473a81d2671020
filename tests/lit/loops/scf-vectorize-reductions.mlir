// RUN: xdsl-opt %s -p scf-vectorize-reductions | filecheck %s

// A row max: its fold is flagged (the python target emits it as llvm.maximum).
// CHECK-LABEL: func.func @rowmax
// CHECK:         scf.for %{{.*}} = %c0 to %k step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
func.func @rowmax(%x: memref<?x?xf32>, %out: memref<?xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xff800000 : f32
  %m = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %ninf) -> (f32) {
    %v = memref.load %x[%c0, %j] : memref<?x?xf32>
    %r = arith.maximumf %acc, %v : f32
    scf.yield %r : f32
  }
  memref.store %m, %out[%c0] : memref<?xf32>
  func.return
}

// A sum's and a product's fold get reorderable flags (and only the fold: the terms keep
// exact NaN and inf). A loop whose accumulator has another use is left alone.
// CHECK-LABEL: func.func @sum$and$product
// CHECK:         arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK:         arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK:         arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK-NOT:     fastmath
func.func @sum$and$product(%x: memref<?xf32>, %k: index) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %s, %p = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero, %prod = %one) -> (f32, f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    %d = arith.subf %v, %v : f32
    %r = arith.addf %acc, %d : f32
    %q = arith.mulf %v, %prod : f32
    scf.yield %r, %q : f32, f32
  }
  %outer = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
    %inner = scf.for %j = %c0 to %k step %c1 iter_args(%a = %acc) -> (f32) {
      %v = memref.load %x[%j] : memref<?xf32>
      %r = arith.addf %a, %v : f32
      scf.yield %r : f32
    }
    scf.yield %inner : f32
  }
  %twice = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    %w = arith.addf %acc, %v : f32
    %r = arith.addf %acc, %w : f32
    scf.yield %r : f32
  }
  func.return %s, %outer, %twice : f32, f32, f32
}

// A difference, a loop that stores its accumulator, one that uses it twice: no flags.
// CHECK-LABEL: func.func @left$alone
// CHECK-NOT:     fastmath
func.func @left$alone(%x: memref<?xf32>, %k: index) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    %r = arith.subf %acc, %v : f32
    scf.yield %r : f32
  }
  %t = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    memref.store %acc, %x[%j] : memref<?xf32>
    %r = arith.maximumf %acc, %v : f32
    scf.yield %r : f32
  }
  %u = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%j] : memref<?xf32>
    %w = arith.mulf %acc, %v : f32
    %r = arith.maximumf %acc, %w : f32
    scf.yield %r : f32
  }
  func.return %s, %t, %u : f32, f32, f32
}
