/*
 * The C side of the simulated log library (src/runtime/log.rs): what Rust
 * cannot write on stable, the variadic entry points. acllogRecord and
 * acllogVaList are exported by Rust (naked trampolines that jump here with
 * every register and stack argument untouched); these take the arguments
 * and hand Rust a pointer to a va_list copy, which Rust formats through
 * npu_sim_alog_format (vsnprintf).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Set by Rust when the library is loaded (src/runtime/log.rs, from
 * .init_array): filters, formats and writes one record. A pointer, not a
 * symbol of Rust's, so that the libraries built with the simulator export
 * no simulator symbol; before it is set (never, once loaded) a record is
 * dropped. */
typedef void (*npu_sim_alog_sink_fn)(int32_t module_id, int32_t level, const char *fmt,
                                     void *list);
npu_sim_alog_sink_fn npu_sim_alog_sink = 0;

/* acllogVaList's body: the caller's list is copied, never consumed. */
void npu_sim_alog_va_list(int32_t module_id, int32_t level, const char *fmt, va_list list)
{
    va_list copy;
    va_copy(copy, list);
    if (npu_sim_alog_sink)
        npu_sim_alog_sink(module_id, level, fmt, (void *)&copy);
    va_end(copy);
}

/* acllogRecord's body. */
void npu_sim_alog_record(int32_t module_id, int32_t level, const char *fmt, ...)
{
    va_list list;
    va_start(list, fmt);
    npu_sim_alog_va_list(module_id, level, fmt, list);
    va_end(list);
}

/* Formats fmt with the arguments of *list (a va_list, not consumed) into
 * buf (cap bytes, NUL-terminated, truncated); returns vsnprintf's count, or
 * -1 on a formatting error. */
int npu_sim_alog_format(char *buf, size_t cap, const char *fmt, void *list)
{
    va_list copy;
    int n;
    va_copy(copy, *(va_list *)list);
    n = vsnprintf(buf, cap, fmt, copy);
    va_end(copy);
    return n;
}
