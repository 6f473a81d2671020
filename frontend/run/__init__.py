"""Calling compiled programs: the signature of actual arguments and their conversion
(numpy / torch), the per-call fast path, guards for shapes the general code would get wrong,
specializations on the structure of arguments, and calls left running in Python."""
