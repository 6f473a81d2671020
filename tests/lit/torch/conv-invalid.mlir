// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// conv2d rejects what torch rejects, with torch's wording.

func.func @torch.aten.conv2d$channels(%x: !torch.vtensor<[1,2,6,6],f32>, %w: !torch.vtensor<[4,3,3,3],f32>) {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %0 = torch.aten.conv2d %x, %w, %none, %int1, %int0, %int1, %int1 : !torch.vtensor<[1,2,6,6],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,4,4,4],f32>
  func.return
}
// CHECK: torch.aten.conv2d: Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 2, 6, 6] to have 3 channels, but got 2 channels instead

// -----

func.func @torch.aten.conv2d.padding$same_strided(%x: !torch.vtensor<[1,2,6,6],f32>, %w: !torch.vtensor<[4,2,3,3],f32>) {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %same = torch.constant.str "same"
  %0 = torch.aten.conv2d.padding %x, %w, %none, %int2, %same, %int1, %int1 : !torch.vtensor<[1,2,6,6],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.none, !torch.int, !torch.str, !torch.int, !torch.int -> !torch.vtensor<[1,4,3,3],f32>
  func.return
}
// CHECK: torch.aten.conv2d.padding: padding='same' is not supported for strided convolutions

// -----

func.func @torch.aten.conv2d$kernel_too_large(%x: !torch.vtensor<[1,2,6,6],f32>, %w: !torch.vtensor<[4,2,7,7],f32>) {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %0 = torch.aten.conv2d %x, %w, %none, %int1, %int0, %int1, %int1 : !torch.vtensor<[1,2,6,6],f32>, !torch.vtensor<[4,2,7,7],f32>, !torch.none, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,4,0,0],f32>
  func.return
}
// CHECK: torch.aten.conv2d: Calculated padded input size per channel: (6). Kernel size: (7). Kernel size can't be greater than actual input size
