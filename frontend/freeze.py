"""`frontend.freeze(scripted)`: a module whose weights are constants of its graph.

Like `torch.jit.freeze`: each compiled method's parameter and buffer arguments become
`torch.vtensor.literal`s holding their current values, callees are inlined, and the torch-opt
folds run on the result — attribute reads and scalar arithmetic on them fold, branches on
constant conditions disappear, and a Conv2d followed by an inference BatchNorm2d becomes one
Conv2d (`torch-fold-conv-bn`). The frozen module no longer reads the original's weights.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.ops.prim import ValueTensorLiteralOp
from frontend.function import ScriptFunction
from frontend.module import ScriptMethod, ScriptModule
from lowering.pipeline import make_context
from lowering.torch_opt import TorchCanonicalizePass, TorchDeadCodeEliminationPass
from lowering.torch_opt.fold_conv_batch_norm import TorchFoldConvBatchNormPass
from lowering.torch_opt.inline import TorchInlinePass


def freeze(scripted: Any) -> ScriptModule:
    """A copy of a `ScriptModule` with its weights baked in and the graph folded."""
    if not isinstance(scripted, ScriptModule):
        raise TypeError(
            f"freeze expects a scripted module (frontend.script(module)), got "
            f"{type(scripted).__name__}"
        )
    methods = {name: freeze_method(m) for name, m in scripted.methods.items()}
    return ScriptModule(scripted.original, methods)


def freeze_method(method: ScriptMethod) -> ScriptMethod:
    if method.variants is not None or method.function.steps is not None:
        raise TypeError(
            f"cannot freeze {method.function.name}: its graph depends on argument structure "
            "(Optional/List/Tuple/str) or calls @frontend.ignore functions"
        )
    module = method.function.module.clone()
    ctx = make_context()
    TorchInlinePass().apply(ctx, module)
    entry = next(op for op in module.ops if isinstance(op, func.FuncOp))
    bake_parameters(entry, method.parameter_values())
    for pass_ in (
        TorchCanonicalizePass(),
        TorchFoldConvBatchNormPass(),
        TorchCanonicalizePass(),
        TorchDeadCodeEliminationPass(),
    ):
        pass_.apply(ctx, module)
    module.verify()
    function = ScriptFunction(module, method.function.name, method.function.python_fn)
    function.result_structure = method.function.result_structure
    return ScriptMethod(method.owner, method.name, function, [])


def bake_parameters(entry: func.FuncOp, values: list[Any]) -> None:
    """Replace the leading parameter arguments of `entry` by literals of `values`."""
    block = entry.body.block
    literals = [ValueTensorLiteralOp(v) for v in values]
    if literals:
        Rewriter.insert_op(literals, InsertPoint.at_start(block))
    for arg, literal in zip(list(block.args[: len(values)]), literals):
        literal.result.name_hint = arg.name_hint
        arg.replace_all_uses_with(literal.result)
        block.erase_arg(arg)
    outputs = entry.function_type.outputs.data
    entry.function_type = FunctionType.from_lists([a.type for a in block.args], list(outputs))

