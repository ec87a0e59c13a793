"""uma from Python: load a model, partition and build it for targets, run it on numpy arrays,
and write backends in Python (docs/python.md)."""

from . import _uma

__all__ = [
    "Backend", "BlockRef", "CompositeCall", "Compiled", "Error", "Expr", "ExternCall",
    "Function", "Match", "Module", "Node", "PartitionReport", "Pattern", "PrimFunc", "Schedule",
    "Target", "Value", "alt", "backends", "build", "const", "dominates", "interpret",
    "is_constant", "is_input", "is_op", "is_tuple_get_item", "load", "optional", "parse",
    "partition", "register_backend", "target_kinds", "wildcard"
]

for _name in __all__:
    _value = getattr(_uma, _name)
    if isinstance(_value, type):
        _value.__module__ = "uma"  # so that errors and reprs say uma.Error, not _uma.Error
    globals()[_name] = _value
