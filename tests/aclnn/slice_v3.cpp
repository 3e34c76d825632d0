// aclnnSliceV3 in the style of CANN's sample (its experimental operator's
// test_aclnn_slice_v3.cpp): a [4, 3] int8 tensor, begin {1, 0}, size
// {2, 2} (docs/ops.md §31), every element checked against the formula;
// then a [2, 3, 4] float box, and the first phase's rules: lengths other
// than the rank, a box past the extent, a negative begin, a null array.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_slice_v3.h"
#include "common.h"

static aclIntArray* Arr(std::vector<int64_t> v)
{
    return aclCreateIntArray(v.data(), v.size());
}

template <typename T>
static int RunBox(aclrtStream stream, const std::vector<T>& data, std::vector<int64_t> shape,
                  std::vector<int64_t> begin, std::vector<int64_t> size, aclDataType dt, std::vector<T>& result)
{
    void *xAddr = nullptr, *yAddr = nullptr;
    aclTensor *x = nullptr, *y = nullptr;
    std::vector<T> init(GetShapeSize(size), T(-1));
    auto ret = CreateAclTensor(data, shape, &xAddr, dt, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(init, size, &yAddr, dt, &y);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *b = Arr(begin), *z = Arr(size);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnSliceV3GetWorkspaceSize(x, b, z, y, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSliceV3GetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnSliceV3(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSliceV3 failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    result.assign(init.size(), T(0));
    ret = ReadBack(yAddr, result);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyIntArray(b);
    aclDestroyIntArray(z);
    aclrtFree(xAddr);
    aclrtFree(yAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // CANN's sample: rows 1..2, columns 0..1 of 0..11.
    std::vector<int8_t> data8 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, got8;
    ret = RunBox(stream, data8, {4, 3}, {1, 0}, {2, 2}, aclDataType::ACL_INT8, got8);
    CHECK_RET(ret == 0, return ret);
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            int got = got8[i * 2 + j], want = data8[(1 + i) * 3 + j];
            CHECK_RET(got == want, LOG_PRINT("y[%d][%d] is %d, should be %d\n", i, j, got, want); return 1);
        }
    }
    // A [2, 3, 4] float box from {1, 1, 2}, size {1, 2, 2}.
    std::vector<float> dataF(24), gotF;
    for (int i = 0; i < 24; i++) {
        dataF[i] = 1.25f * i - 7;
    }
    ret = RunBox(stream, dataF, {2, 3, 4}, {1, 1, 2}, {1, 2, 2}, aclDataType::ACL_FLOAT, gotF);
    CHECK_RET(ret == 0, return ret);
    for (int j = 0; j < 2; j++) {
        for (int k = 0; k < 2; k++) {
            float got = gotF[j * 2 + k], want = dataF[(1 * 3 + 1 + j) * 4 + 2 + k];
            CHECK_RET(got == want, LOG_PRINT("y[0][%d][%d] is %f, should be %f\n", j, k, got, want); return 1);
        }
    }

    // The first phase's rules (no executor written).
    std::vector<int64_t> shape = {4, 3}, outShape = {2, 2};
    void *xAddr = nullptr, *yAddr = nullptr;
    aclTensor *x = nullptr, *y = nullptr;
    std::vector<int8_t> init(4, 0);
    ret = CreateAclTensor(data8, shape, &xAddr, aclDataType::ACL_INT8, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(init, outShape, &yAddr, aclDataType::ACL_INT8, &y);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *one = Arr({1}), *ok = Arr({1, 0}), *size = Arr({2, 2}), *past = Arr({3, 0}), *neg = Arr({-1, 0});
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnSliceV3GetWorkspaceSize(x, one, size, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("short begin: %d\n", ret); return 1);
    ret = aclnnSliceV3GetWorkspaceSize(x, ok, one, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("short size: %d\n", ret); return 1);
    ret = aclnnSliceV3GetWorkspaceSize(x, past, size, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("box past the extent: %d\n", ret); return 1);
    ret = aclnnSliceV3GetWorkspaceSize(x, neg, size, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("negative begin: %d\n", ret); return 1);
    ret = aclnnSliceV3GetWorkspaceSize(x, nullptr, size, y, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null begin: %d\n", ret); return 1);

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    for (aclIntArray* a : {one, ok, size, past, neg}) {
        aclDestroyIntArray(a);
    }
    aclrtFree(xAddr);
    aclrtFree(yAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("slice_v3: ok\n");
    return 0;
}
