"""The source templates of `matmul_pair` (`c = a @ b + a2 @ b2`, both right operands packed):
the library kernel that `library-call-pairs` (`lowering/loops/library_call_pairs.py`) calls for the
two matmuls of an RNN step. Formatted like the other templates of
`lowering/python_target/library_kernels.py` (its fields: a finish's `flags` include `RELU`
for `_relu`, which the second product applies: relu(init + a @ b + a2 @ b2))."""

MATMUL_PAIR = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(a, b, a2, b2, {bias_param}c):
    """c {assign} a @ b + a2 @ b2{finish} (b, b2 packed by pack_nn / pack_nt; c no view of a2,
    b2), in chunks of rows or column panels (tsjit_work_split), in {loop}: each chunk runs its
    part of a @ b, then adds that of a2 @ b2 (one parallel loop for both products)."""
    work = c if c.strides[1] == c.itemsize else np.ascontiguousarray(c)
    {bias_line}
    m, blocks = a.shape[0], tsjit_panel_blocks(b, a.shape[1], c.shape[1])
    blocks2 = tsjit_panel_blocks(b2, a2.shape[1], c.shape[1])
    panels = blocks.shape[0]
    items, by_rows = tsjit_work_split(m, panels, (b.size + b2.size) * b.itemsize)
    chunks = max(1, min({threads}, items))
    for t in {loop}(chunks):
        lo, hi = t * items // chunks, (t + 1) * items // chunks
        r0, r1, p0, p1 = tsjit_work_item(lo, hi, by_rows, m, panels)
        part = work[r0:r1]
        tsjit_gemm_panels(p0, p1, a[r0:r1], blocks, 0, part, bias, ({flags}) & ~RELU)
        then = ACCUMULATE | (({flags}) & RELU)
        tsjit_gemm_panels(p0, p1, a2[r0:r1], blocks2, 0, part, bias, then)
    if c.strides[1] != c.itemsize:  # loops: a slice assignment costs seconds of compile time
        for i in range(c.shape[0]):
            for j in range(c.shape[1]):
                c[i, j] = work[i, j]
'''

MATMUL_PAIR_ROWS = '''@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_rows(lo, hi, a, b, a2, b2, bias, c):
    """Column panels lo..hi of c {assign} a @ b + a2 @ b2{finish} (b, b2 packed)."""
    blocks = tsjit_panel_blocks(b, a.shape[1], c.shape[1])
    blocks2 = tsjit_panel_blocks(b2, a2.shape[1], c.shape[1])
    tsjit_gemm_panels(lo, hi, a, blocks, 0, c, bias, ({flags}) & ~RELU)
    tsjit_gemm_panels(lo, hi, a2, blocks2, 0, c, bias, ACCUMULATE | (({flags}) & RELU))


def {name}(a, b, a2, b2, {bias_param}c):
    """c {assign} a @ b + a2 @ b2{finish} in panels of columns, on threads for large arrays."""
    work = c if c.strides[1] == c.itemsize else np.ascontiguousarray(c)
    {bias_line}
    panels = -(-c.shape[1] // tsjit_panel_width(c.shape[1]))
    if a.size + b.size + a2.size + b2.size + c.size >= CHUNK_GRAIN and panels > 1:
        run_in_chunks({name}_rows, 0, panels, (a, b, a2, b2, bias, work))
    else:
        {name}_rows(0, panels, a, b, a2, b2, bias, work)
    if work is not c:
        c[...] = work
'''
