/* npu_sim.h - simulator-only entry points of npu-sim (not part of CANN). */
#ifndef NPU_SIM_H
#define NPU_SIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Live counts of everything the simulator hands out. */
typedef struct {
    uint64_t allocations;      /* live device allocations */
    uint64_t allocated_bytes;  /* device bytes in use */
    uint64_t host_allocations; /* live aclrtMallocHost blocks */
    uint64_t tensors;
    uint64_t int_arrays;
    uint64_t scalars;
    uint64_t executors;
    uint64_t streams;          /* default streams not counted */
    uint64_t events;
    uint64_t internal_errors;  /* caught panics (simulator bugs) since start */
    uint64_t launches;         /* operator launches since start */
    uint64_t padding_accesses; /* accesses into aclrtMalloc's padding (past the
                                  size asked for, inside ALIGN_UP(size, 32) + 32)
                                  allowed since start: memory-checker warnings;
                                  NPU_SIM_STRICT_MEMORY=1 refuses them */
} NpuSimStats;

/* Fills *out; returns 0 (ACL_SUCCESS), or 100000 for a null pointer. */
int npuSimGetStats(NpuSimStats *out);

/* Test hook: work enqueued on `stream` after this call waits until
   npuSimReleaseHold(*hold), or until the stream is destroyed
   (aclrtDestroyStream, aclrtResetDevice releasing its device, aclFinalize):
   a hold never outlives its stream. */
int npuSimHoldStream(void *stream, void **hold);
/* Releases a hold; 100000 (ACL_ERROR_INVALID_PARAM) for a handle released
   already (also by aclrtResetDevice/aclFinalize) or never issued. */
int npuSimReleaseHold(void *hold);

#ifdef __cplusplus
}
#endif

#endif /* NPU_SIM_H */
