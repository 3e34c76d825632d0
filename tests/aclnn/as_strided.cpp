// aclnnAsStrided in the style of CANN's sample (its experimental page): a
// 10-element int32 tensor, size {4}, stride {2}, storageOffset {1}
// (docs/ops.md §33); then overlapping windows over a [3, 4] float tensor,
// every element checked against the formula; then the first phase's rules:
// lengths, a negative stride, a storageOffset of two entries, a window
// past the end, a null array.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_as_strided.h"
#include "common.h"

static aclIntArray* Arr(std::vector<int64_t> v)
{
    return aclCreateIntArray(v.data(), v.size());
}

template <typename T>
static int Window(aclrtStream stream, const std::vector<T>& data, std::vector<int64_t> shape, aclDataType dt,
                  std::vector<int64_t> size, std::vector<int64_t> stride, int64_t offset, std::vector<T>& result)
{
    void *xAddr = nullptr, *yAddr = nullptr;
    aclTensor *x = nullptr, *y = nullptr;
    std::vector<T> init(GetShapeSize(size), T(0));
    auto ret = CreateAclTensor(data, shape, &xAddr, dt, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(init, size, &yAddr, dt, &y);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *sz = Arr(size), *st = Arr(stride), *off = Arr({offset});
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    ret = aclnnAsStridedGetWorkspaceSize(x, sz, st, off, y, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAsStridedGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspace = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnAsStrided(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAsStrided failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    result.assign(init.size(), T(0));
    ret = ReadBack(yAddr, result);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    if (workspace != nullptr) {
        aclrtFree(workspace);
    }
    aclDestroyIntArray(sz);
    aclDestroyIntArray(st);
    aclDestroyIntArray(off);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclrtFree(xAddr);
    aclrtFree(yAddr);
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int32_t> ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, gotI;
    ret = Window(stream, ints, {10}, aclDataType::ACL_INT32, {4}, {2}, 1, gotI);
    CHECK_RET(ret == 0, return ret);
    for (int i = 0; i < 4; i++) {
        CHECK_RET(gotI[i] == 1 + 2 * i, LOG_PRINT("y[%d] is %d, should be %d\n", i, gotI[i], 1 + 2 * i); return 1);
    }
    // Overlapping 3x3 windows (stride {4, 1}) and a repeated row (stride 0).
    std::vector<float> f(12), gotF;
    for (int i = 0; i < 12; i++) {
        f[i] = 0.25f * i + 1;
    }
    ret = Window(stream, f, {3, 4}, aclDataType::ACL_FLOAT, {2, 3, 3}, {0, 4, 1}, 1, gotF);
    CHECK_RET(ret == 0, return ret);
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            for (int c = 0; c < 3; c++) {
                float got = gotF[(a * 3 + b) * 3 + c], want = f[1 + 4 * b + c];
                CHECK_RET(got == want, LOG_PRINT("y[%d][%d][%d] is %f, should be %f\n", a, b, c, got, want); return 1);
            }
        }
    }

    // The first phase's rules (no executor written).
    std::vector<int64_t> shape = {10}, outShape = {4};
    void *xAddr = nullptr, *yAddr = nullptr;
    aclTensor *x = nullptr, *y = nullptr;
    std::vector<int32_t> init(4, 0);
    ret = CreateAclTensor(ints, shape, &xAddr, aclDataType::ACL_INT32, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(init, outShape, &yAddr, aclDataType::ACL_INT32, &y);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *size = Arr({4}), *stride = Arr({2}), *off = Arr({1}), *two = Arr({1, 1}), *neg = Arr({-2}),
                *big = Arr({3});
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnAsStridedGetWorkspaceSize(x, size, two, off, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("stride length: %d\n", ret); return 1);
    ret = aclnnAsStridedGetWorkspaceSize(x, size, neg, off, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("negative stride: %d\n", ret); return 1);
    ret = aclnnAsStridedGetWorkspaceSize(x, size, stride, two, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("storageOffset of two entries: %d\n", ret); return 1);
    ret = aclnnAsStridedGetWorkspaceSize(x, size, big, off, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("window past the end: %d\n", ret); return 1);
    ret = aclnnAsStridedGetWorkspaceSize(x, size, stride, nullptr, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null storageOffset: %d\n", ret); return 1);

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    for (aclIntArray* a : {size, stride, off, two, neg, big}) {
        aclDestroyIntArray(a);
    }
    aclrtFree(xAddr);
    aclrtFree(yAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("as_strided: ok\n");
    return 0;
}
