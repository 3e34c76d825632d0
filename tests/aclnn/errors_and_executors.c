/* The error paths and executor rules of aclnn, from C (C11), against the
   CANN header layout and libraries: null pointers (161001), bad parameters
   (161002), a one-shot executor run twice, a missing workspace, repeatable
   executors with rebound addresses, a refused set-repeatable, and an
   out-of-range index found at synchronisation (507015). Exits non-zero on
   the first broken rule. */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_slice.h"

/* aclnn's status codes (CANN installs no public header for them). */
#define PARAM_NULLPTR 161001
#define PARAM_INVALID 161002
#define AICORE_EXCEPTION 507015

static int failures = 0;
#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            printf("FAIL line %d: ", __LINE__);            \
            printf(__VA_ARGS__);                           \
            printf(" (%s)\n", aclGetRecentErrMsg());       \
            failures++;                                    \
        }                                                  \
    } while (0)

/* aclGetRecentErrMsg in CANN's format: the error manager's Title(Code)
   first (EZ1001 parameter, EZ9999 inner, EE9999 runtime), then the text. */
static int msg_starts(const char *prefix)
{
    const char *m = aclGetRecentErrMsg();
    return m != NULL && strncmp(m, prefix, strlen(prefix)) == 0;
}
static int msg_has(const char *part)
{
    const char *m = aclGetRecentErrMsg();
    return m != NULL && strstr(m, part) != NULL;
}

static void *device_copy(const void *host, size_t bytes)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    if (host && aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        return NULL;
    return p;
}

static aclTensor *tensor2d(int64_t rows, int64_t cols, int64_t row_stride, aclDataType t, void *data,
                           int64_t storage)
{
    const int64_t shape[2] = {rows, cols}, strides[2] = {row_stride, 1}, st[1] = {storage};
    return aclCreateTensor(shape, 2, t, strides, 0, ACL_FORMAT_ND, st, 1, data);
}

int main(void)
{
    aclrtStream stream = NULL;
    float x_host[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, out_host[6];
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st;
    int i;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&stream) != ACL_SUCCESS) {
        printf("init failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    void *xd = device_copy(x_host, sizeof x_host), *od = device_copy(NULL, 4 * sizeof out_host);
    aclTensor *x = tensor2d(4, 3, 3, ACL_FLOAT, xd, 12);
    aclTensor *out = tensor2d(2, 3, 3, ACL_FLOAT, od, 12);

    /* Null pointers first: 161001. */
    EXPECT(aclnnSliceGetWorkspaceSize(NULL, 0, 0, 2, 1, out, &ws, &ex) == PARAM_NULLPTR, "null self");
    EXPECT(msg_starts("AclNN_Parameter_Error(EZ1001): Expected a value of type [aclTensor] for argument "
                      "[self] but instead found nullptr.") && msg_has("self is null"),
           "null self in CANN's words");
    EXPECT(aclnnSliceGetWorkspaceSize(x, 0, 0, 2, 1, out, &ws, NULL) == PARAM_NULLPTR, "null executor");
    /* Bad parameters: 161002. */
    EXPECT(aclnnSliceGetWorkspaceSize(x, 2, 0, 2, 1, out, &ws, &ex) == PARAM_INVALID, "dim 2 of rank 2");
    EXPECT(msg_starts("AclNN_Parameter_Error(EZ1001): aclnnSlice") && msg_has("dim"), "EZ1001, the rule named");
    EXPECT(aclnnSliceGetWorkspaceSize(x, 0, 0, 2, 0, out, &ws, &ex) == PARAM_INVALID, "step 0");
    EXPECT(aclnnSliceGetWorkspaceSize(x, 0, 0, 3, 1, out, &ws, &ex) == PARAM_INVALID, "out shape");
    EXPECT(aclDestroyTensor(NULL) == ACL_SUCCESS, "destroying NULL");

    /* A one-shot executor runs once. */
    st = aclnnSliceGetWorkspaceSize(x, 0, 1, 3, 1, out, &ws, &ex);
    EXPECT(st == ACL_SUCCESS && ws == 0, "slice first phase: %d", st);
    EXPECT(aclnnSlice(NULL, 0, ex, stream) == ACL_SUCCESS, "first run");
    EXPECT(aclnnSlice(NULL, 0, ex, stream) != ACL_SUCCESS, "a one-shot executor ran twice");
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "sync");
    EXPECT(aclrtMemcpy(out_host, sizeof out_host, od, sizeof out_host, ACL_MEMCPY_DEVICE_TO_HOST) ==
               ACL_SUCCESS,
           "read back");
    for (i = 0; i < 6; i++)
        EXPECT(out_host[i] == (float)(3 + i), "slice[%d] = %f", i, out_host[i]);

    /* A strided out needs a workspace; a null one fails (161001). */
    {
        aclTensor *gap = tensor2d(2, 3, 6, ACL_FLOAT, od, 12); /* every other row */
        st = aclnnSliceGetWorkspaceSize(x, 0, 0, 2, 1, gap, &ws, &ex);
        EXPECT(st == ACL_SUCCESS && ws > 0, "strided out: %d, workspace %llu", st, (unsigned long long)ws);
        EXPECT(aclnnSlice(NULL, ws, ex, stream) == PARAM_NULLPTR, "null workspace");
        aclDestroyTensor(gap);
    }

    /* Repeatable: runs again with a new input address, destroyed by us. */
    {
        float y_host[12];
        for (i = 0; i < 12; i++)
            y_host[i] = (float)(100 + i);
        void *yd = device_copy(y_host, sizeof y_host);
        st = aclnnSliceGetWorkspaceSize(x, 0, 2, 4, 1, out, &ws, &ex);
        EXPECT(st == ACL_SUCCESS, "repeatable first phase");
        EXPECT(aclSetAclOpExecutorRepeatable(ex) == ACL_SUCCESS, "set repeatable");
        EXPECT(aclnnSlice(NULL, 0, ex, stream) == ACL_SUCCESS, "repeatable run 1");
        EXPECT(aclSetInputTensorAddr(ex, 0, x, yd) == ACL_SUCCESS, "rebind the input");
        EXPECT(aclnnSlice(NULL, 0, ex, stream) == ACL_SUCCESS, "repeatable run 2");
        EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "sync");
        aclrtMemcpy(out_host, sizeof out_host, od, sizeof out_host, ACL_MEMCPY_DEVICE_TO_HOST);
        for (i = 0; i < 6; i++)
            EXPECT(out_host[i] == (float)(106 + i), "rebound slice[%d] = %f", i, out_host[i]);
        EXPECT(aclDestroyAclOpExecutor(ex) == ACL_SUCCESS, "destroy");
        EXPECT(aclDestroyAclOpExecutor(ex) != ACL_SUCCESS, "destroyed twice");
        EXPECT(aclSetAclOpExecutorRepeatable(NULL) == 561103, "set-repeatable of NULL");
        EXPECT(msg_starts("AclNN_Inner_Error(EZ9999): "), "561103 is EZ9999");
        aclrtFree(yd);
    }

    /* ConstantPadNd copies its scalar inside: set-repeatable is refused,
       and the executor still runs once. */
    {
        int64_t pads[4] = {0, 0, 0, 0};
        float v = 1.0f;
        aclIntArray *pad = aclCreateIntArray(pads, 4);
        aclScalar *value = aclCreateScalar(&v, ACL_FLOAT);
        aclTensor *same = tensor2d(4, 3, 3, ACL_FLOAT, od, 12);
        st = aclnnConstantPadNdGetWorkspaceSize(x, pad, value, same, &ws, &ex);
        EXPECT(st == ACL_SUCCESS, "pad first phase: %d", st);
        EXPECT(aclSetAclOpExecutorRepeatable(ex) != ACL_SUCCESS, "set-repeatable of a pad");
        EXPECT(aclnnConstantPadNd(NULL, 0, ex, stream) == ACL_SUCCESS, "pad runs one-shot");
        aclDestroyTensor(same);
        aclDestroyIntArray(pad);
        aclDestroyScalar(value);
    }

    /* An out-of-range index: both phases succeed; the device finds it. */
    {
        int64_t idx_host[2] = {1, 9};
        void *id = device_copy(idx_host, sizeof idx_host);
        const int64_t ishape[1] = {2};
        aclTensor *index = aclCreateTensor(ishape, 1, ACL_INT64, NULL, 0, ACL_FORMAT_ND, ishape, 1, id);
        aclTensor *rows = tensor2d(2, 3, 3, ACL_FLOAT, od, 12);
        st = aclnnIndexSelectGetWorkspaceSize(x, 0, index, rows, &ws, &ex);
        EXPECT(st == ACL_SUCCESS, "index_select first phase: %d", st);
        EXPECT(aclnnIndexSelect(NULL, 0, ex, stream) == ACL_SUCCESS, "index_select second phase");
        st = aclrtSynchronizeStream(stream);
        EXPECT(st == AICORE_EXCEPTION, "out-of-range index at sync: %d", st);
        EXPECT(msg_starts("EE9999: Inner Error! ") && msg_has("out of range"), "an explanation");
        EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "the fault is reported once");
        aclDestroyTensor(index);
        aclDestroyTensor(rows);
        aclrtFree(id);
    }

    aclDestroyTensor(x);
    aclDestroyTensor(out);
    aclrtFree(xd);
    aclrtFree(od);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (failures) {
        printf("errors_and_executors: %d failure(s)\n", failures);
        return 1;
    }
    printf("errors_and_executors: ok\n");
    return 0;
}
